//! Building the index: each file read whole (unless it is binary, too large or has too long a
//! line), cut into sections after line ends, and every distinct trigram of a section added to
//! its list. Threads build over contiguous, path-ordered ranges of the files, and their lists
//! are concatenated.

use std::io::Read;

use crate::candidates::{BOMS, MAX_CONTEXT, MAX_FILE_BYTES, MAX_LINE_BYTES};
use crate::keyblock;

use super::contents::{Held, HeldPart};
use super::encoding::Tag;
use super::grams::for_each_place;
use super::lists::{Built, Lists};
use super::view::Postings;

/// Files larger than this are not indexed: they are searched on every query. Below the cold
/// search's `too_large` cap, so a file the index proves match-free is one the cold search reads.
pub(crate) const MAX_INDEXED_BYTES: u64 = if MAX_FILE_BYTES < 64 * 1024 * 1024 {
    MAX_FILE_BYTES
} else {
    64 * 1024 * 1024
};

/// A file with a line longer than this is not indexed. A search holds at most the line and
/// `MAX_CONTEXT` context lines on each side, so with lines this short it stays under half the
/// searcher's `MAX_LINE_BYTES` heap limit: a file the index proves match-free is one the cold
/// search would read to its end, never pass over as `line_too_long`. (A file over
/// `MAX_LINE_BYTES` is `too_large` for a multiline search; the query side searches those.)
pub(crate) const MAX_INDEXED_LINE_BYTES: usize = MAX_LINE_BYTES / 2 / (2 * MAX_CONTEXT + 1);

/// A file is cut into sections after the first line end at or past every this many bytes
/// (measured against 16 KiB and 256 KiB in benches/README.md).
pub(crate) const SECTION_BYTES: usize = 64 * 1024;

/// The sections of `content`: ranges ending after a line end (or at the end).
fn sections(content: &[u8]) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < content.len() {
        let end = match content.get(start + SECTION_BYTES..) {
            Some(rest) => {
                memchr::memchr(b'\n', rest).map_or(content.len(), |i| start + SECTION_BYTES + i + 1)
            }
            None => content.len(),
        };
        out.push(start..end);
        start = end;
    }
    out
}

/// The length of the longest line of `content`, terminator included.
fn longest_line(content: &[u8]) -> usize {
    let mut longest = 0;
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', content) {
        longest = longest.max(end + 1 - start);
        start = end + 1;
    }
    longest.max(content.len() - start)
}

/// Whether a document's contents went into the index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Indexed {
    /// Text: its trigrams are in the index, and a search that finds no match in it reads it
    /// to the end without skipping it.
    Text,
    /// Not indexed (binary, a BOM, too large, unreadable, or the build was stopped): always
    /// searched.
    No,
}

/// Per-thread scratch for one build: the file's contents, and the distinct trigrams of the
/// current section: `tags`, the tag of every possible trigram (0 for those not met, else with
/// [`SEEN`] set), and `seen`, the first `seen_len` of which are those met, in order of first
/// appearance.
///
/// The scan is branch-free on purpose: every place writes its key to `seen[seen_len]` and moves
/// `seen_len` on only when the trigram is new, so a new trigram costs no mispredicted jump (on
/// the Linux tree, one place in ten is new, at random: the branch cost a third of the scan).
struct Scratch {
    tags: Box<[Tag; 1 << 24]>,
    seen: Vec<u32>,
    seen_len: usize,
    buffer: Vec<u8>,
}

/// The bit of a `Scratch::tags` entry that says its trigram was met (no tag sets it).
const SEEN: Tag = 1 << 31;

impl Scratch {
    fn new() -> Scratch {
        let tags: Box<[Tag]> = vec![0; 1 << 24].into_boxed_slice();
        Scratch {
            tags: tags
                .try_into()
                .unwrap_or_else(|_| unreachable!("2^24 tags")),
            seen: Vec::new(),
            seen_len: 0,
            buffer: Vec::new(),
        }
    }

    /// Reads `reader` whole into the buffer; false when the file is not indexed (see
    /// [`Indexed::No`]).
    fn load(&mut self, reader: &mut dyn Read, size_hint: u64) -> bool {
        self.buffer.clear();
        if size_hint > MAX_INDEXED_BYTES {
            return false;
        }
        let limit = MAX_INDEXED_BYTES + 1;
        if reader.take(limit).read_to_end(&mut self.buffer).is_err() {
            return false;
        }
        let content = &self.buffer[..];
        !(content.len() as u64 > MAX_INDEXED_BYTES
            || BOMS.iter().any(|b| content.starts_with(b))
            || memchr::memchr(0, content).is_some()
            || (content.len() > MAX_INDEXED_LINE_BYTES
                && longest_line(content) > MAX_INDEXED_LINE_BYTES))
    }

    /// Collects the distinct trigrams starting in `section` of the loaded contents (see
    /// [`Scratch::met`]).
    fn collect(&mut self, section: std::ops::Range<usize>) {
        for &t in &self.seen[..self.seen_len] {
            self.tags[(t & 0xff_ffff) as usize] = 0;
        }
        // One slot per place, and one more for the last place's write.
        if self.seen.len() <= section.len() {
            self.seen.resize(section.len() + 1, 0);
        }
        let (tags, seen) = (&mut self.tags, &mut self.seen);
        let mut len = 0;
        for_each_place(&self.buffer, section, |key, tag| {
            let slot = &mut tags[(key & 0xff_ffff) as usize];
            let new = usize::from(*slot == 0);
            *slot |= tag | SEEN;
            seen[len] = key;
            len += new;
        });
        self.seen_len = len;
    }

    /// The trigrams of the last section collected and their tags, in order of first appearance.
    fn met(&self) -> impl Iterator<Item = (u32, Tag)> + '_ {
        self.seen[..self.seen_len]
            .iter()
            .map(|&t| (t, self.tags[(t & 0xff_ffff) as usize] & !SEEN))
    }
}

/// Threads a build uses at most: each holds a 66 MiB scratch (a tag for every possible
/// trigram, see `Scratch`), and reading files stops scaling well before this many.
const MAX_BUILD_THREADS: usize = 8;

/// One thread's build: its lists, its files' statuses, the document of each of its sections
/// (numbered from 0 within the thread) and where each starts in its file, and the contents it
/// holds.
type Part = (Lists, Vec<Indexed>, (Vec<u32>, Vec<u32>), HeldPart);

impl Postings {
    /// Builds the lists of `files` (path, size) split into `parts` ranges, one thread each.
    /// `open` opens a file by path; `stop` is polled between files (a stopped build leaves the
    /// remaining documents unindexed). Returns the lists (every one with its masks: which are
    /// bare is decided when they are written) and each document's status.
    pub(crate) fn build<F: AsRef<str> + Sync>(
        files: &[(F, u64)],
        threads: usize,
        open: &(dyn Fn(&str) -> std::io::Result<std::fs::File> + Sync),
        stop: &(dyn Fn() -> bool + Sync),
    ) -> (Built, Vec<Indexed>) {
        let threads = threads.clamp(1, MAX_BUILD_THREADS).min(files.len().max(1));
        let total: u64 = files.iter().map(|f| f.1.min(MAX_INDEXED_BYTES)).sum();
        // Contiguous ranges of about equal bytes.
        let mut parts = Vec::new();
        let mut start = 0usize;
        let mut acc = 0u64;
        for (i, file) in files.iter().enumerate() {
            acc += file.1.min(MAX_INDEXED_BYTES);
            let boundary = total * (parts.len() as u64 + 1) / threads as u64;
            if acc >= boundary && parts.len() + 1 < threads {
                parts.push(start..i + 1);
                start = i + 1;
            }
        }
        parts.push(start..files.len());
        let results: Vec<Part> = std::thread::scope(|scope| {
            let handles: Vec<_> = parts
                .iter()
                .map(|range| {
                    let range = range.clone();
                    crate::threads::spawn_or_run(scope, move || {
                        build_part(files, range, open, stop)
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join().unwrap_or_else(|_| {
                        let sections = (Vec::new(), Vec::new());
                        (Lists::new(), Vec::new(), sections, HeldPart::default())
                    })
                })
                .collect()
        });
        let mut status = Vec::with_capacity(files.len());
        let mut parts = Vec::with_capacity(results.len());
        let mut held = Vec::with_capacity(results.len());
        let mut section_starts = Vec::new();
        for (lists, part_status, (part_documents, starts), part_held) in results {
            held.push((status.len(), part_held));
            status.extend(part_status);
            parts.push((lists, part_documents));
            section_starts.extend(starts);
        }
        // A thread that panicked left no statuses: its files are not indexed.
        status.resize(files.len(), Indexed::No);
        let mut built = Built::new(parts, files.len());
        built.contents = Held::new(held);
        built.section_starts = section_starts;
        (built, status)
    }
}

fn build_part<F: AsRef<str> + Sync>(
    files: &[(F, u64)],
    range: std::ops::Range<usize>,
    open: &(dyn Fn(&str) -> std::io::Result<std::fs::File> + Sync),
    stop: &(dyn Fn() -> bool + Sync),
) -> Part {
    let mut lists = Lists::new();
    let mut scratch = Scratch::new();
    let mut status = Vec::with_capacity(range.len());
    let mut documents = Vec::with_capacity(range.len());
    let mut starts = Vec::with_capacity(range.len());
    let mut held = HeldPart::default();
    for doc in range {
        let (path, size) = &files[doc];
        let path = path.as_ref();
        if stop() {
            status.push(Indexed::No);
            held.push(None);
            continue;
        }
        let Ok(mut file) = open(path) else {
            status.push(Indexed::No);
            held.push(None);
            continue;
        };
        if !scratch.load(&mut file, *size) {
            status.push(Indexed::No);
            held.push(None);
            continue;
        }
        // A file that may hold a private key is not copied into the index file; it is read
        // from disk and searched in key mode whatever the index holds.
        held.push(Some(&scratch.buffer[..]).filter(|b| !keyblock::may_hold_key(b)));
        for section in sections(&scratch.buffer) {
            let start = section.start;
            scratch.collect(section);
            let number = documents.len() as u32;
            for (key, tag) in scratch.met() {
                lists.push(key, number, tag);
            }
            documents.push(doc as u32);
            // Below MAX_INDEXED_BYTES (64 MiB): a section starts within u32.
            starts.push(u32::try_from(start).unwrap_or(u32::MAX));
        }
        status.push(Indexed::Text);
    }
    // Finished before the scratch (its large buffers) is freed: see `Lists::finish`.
    lists.finish();
    drop(scratch);
    (lists, status, (documents, starts), held)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::postings::encoding::WIDE_FROM_BITS;
    use crate::index::postings::grams::{
        Gram, LOWER, UPPER, case_bits, follow_bits, narrow, trigram,
    };
    use crate::index::postings::query::{intersect, union};
    use crate::index::postings::write::tests::view;

    /// `Postings::build` read back as a query reads it.
    fn built(
        files: &[(String, u64)],
        threads: usize,
        open: &(dyn Fn(&str) -> std::io::Result<std::fs::File> + Sync),
    ) -> (Postings, Vec<Indexed>) {
        let (lists, status) = Postings::build(files, threads, open, &|| false);
        (view(&Postings::default(), &lists, 0), status)
    }

    fn gram(key: u32, follow: u16) -> Gram {
        Gram {
            key,
            follow,
            case: 0,
        }
    }

    /// The documents whose sections hold `key` with the follow bits `want`.
    fn docs(postings: &Postings, key: u32, want: u16) -> Vec<u32> {
        postings.documents_of(&postings.sections(gram(key, want)))
    }

    /// Writes `contents` as `0.txt`, `1.txt`, ... into `dir`; returns their (name, size).
    fn write_files(dir: &std::path::Path, contents: &[&str]) -> Vec<(String, u64)> {
        let mut files = Vec::new();
        for (i, text) in contents.iter().enumerate() {
            let name = format!("{i}.txt");
            std::fs::write(dir.join(&name), text).expect("write");
            files.push((name, text.len() as u64));
        }
        files
    }

    #[test]
    fn lists_are_the_documents_holding_each_trigram_in_any_case() {
        let dir = tempfile::tempdir().expect("tempdir");
        // Three files without `hel` keep its list under half the sections, so it keeps masks.
        let contents = [
            "Hello world",
            "say HELLO",
            "bin\0ary hello",
            "nothing",
            "hello",
            "filler one",
            "filler two",
            "filler three",
        ];
        let files = write_files(dir.path(), &contents);
        let open = |p: &str| std::fs::File::open(dir.path().join(p));
        for threads in [1, 2, 3, 8] {
            let (postings, status) = built(&files, threads, &open);
            assert_eq!(status[2], Indexed::No, "binary");
            assert_eq!(status[0], Indexed::Text);
            let hel = trigram(b'h', b'e', b'l');
            assert_eq!(docs(&postings, hel, 0), vec![0, 1, 4]);
            assert_eq!(
                docs(&postings, hel, follow_bits(Some(b'L'), Some(b'o'))),
                vec![0, 1, 4]
            );
            assert_eq!(postings.count(trigram(b'L', b'L', b'O')), 3);
            // `llo` is followed by a space in 0.txt only, and ends 1.txt and 4.txt.
            let llo = trigram(b'l', b'l', b'o');
            assert_eq!(
                docs(&postings, llo, follow_bits(Some(b' '), Some(b'w'))),
                vec![0]
            );
            assert_eq!(
                docs(&postings, trigram(b'x', b'y', b'z'), 0),
                Vec::<u32>::new()
            );
        }
    }

    #[test]
    fn a_trigram_with_many_followers_keeps_its_whole_mask() {
        // Two followers of `pm_` whose folded bits are the same but whose full bits differ.
        let letters: Vec<u8> = (b'a'..=b'z').collect();
        let pairs: Vec<(u8, u8)> = letters
            .iter()
            .flat_map(|&a| letters.iter().map(move |&b| (a, b)))
            .collect();
        let (absent, present) = pairs
            .iter()
            .flat_map(|&x| pairs.iter().map(move |&y| (x, y)))
            .find(|&(x, y)| {
                let (fx, fy) = (
                    follow_bits(Some(x.0), Some(x.1)),
                    follow_bits(Some(y.0), Some(y.1)),
                );
                fx != fy && narrow(fx) == narrow(fy) && fx & fy == 0
            })
            .expect("two followers that fold alike");
        // `pm_` followed by `present` and by enough others to fill its folded mask.
        let mut text = format!("pm_{}{} ", present.0 as char, present.1 as char);
        let mut folded = narrow(follow_bits(Some(present.0), Some(present.1)));
        let mut full = follow_bits(Some(present.0), Some(present.1));
        for &(a, b) in &pairs {
            let bits = follow_bits(Some(a), Some(b));
            let merged = full | bits;
            if folded.count_ones() >= WIDE_FROM_BITS {
                break;
            }
            if merged & follow_bits(Some(absent.0), Some(absent.1))
                == follow_bits(Some(absent.0), Some(absent.1))
            {
                continue;
            }
            full = merged;
            folded = narrow(full);
            text.push_str(&format!("pm_{}{} ", a as char, b as char));
        }
        assert!(folded.count_ones() >= WIDE_FROM_BITS, "{text}");
        let dir = tempfile::tempdir().expect("tempdir");
        // Files without `pm_` keep its list under half the sections, so it keeps masks.
        let files = write_files(dir.path(), &[&text, "filler", "filler", "filler"]);
        let (postings, _) = built(&files, 1, &|p: &str| {
            std::fs::File::open(dir.path().join(p))
        });
        let key = trigram(b'p', b'm', b'_');
        assert_eq!(
            docs(
                &postings,
                key,
                follow_bits(Some(present.0), Some(present.1))
            ),
            vec![0]
        );
        // The folded mask alone would let `absent` pass.
        assert_eq!(
            narrow(follow_bits(Some(absent.0), Some(absent.1))) & folded,
            narrow(follow_bits(Some(absent.0), Some(absent.1)))
        );
        assert_eq!(
            docs(&postings, key, follow_bits(Some(absent.0), Some(absent.1))),
            Vec::<u32>::new()
        );
    }

    #[test]
    fn lists_of_half_the_sections_keep_no_masks_but_keep_case() {
        let dir = tempfile::tempdir().expect("tempdir");
        let files = write_files(dir.path(), &["int a", "INT b", "int c", "x"]);
        let (postings, _) = built(&files, 2, &|p: &str| {
            std::fs::File::open(dir.path().join(p))
        });
        let key = trigram(b'i', b'n', b't');
        // `int` is in 3 of 4 sections: a query for any follower passes them all...
        let any =
            |follow, case| postings.documents_of(&postings.sections(Gram { key, follow, case }));
        assert_eq!(any(follow_bits(Some(b'q'), Some(b'q')), 0), vec![0, 1, 2]);
        // ...but the case bits still tell.
        assert_eq!(any(0, UPPER), vec![1]);
        assert_eq!(any(0, LOWER), vec![0, 2]);
        // Exactly the lists of at least half the 4 sections are bare.
        for i in 0..postings.keys_len() {
            assert_eq!(postings.is_bare(i), postings.count_at(i) * 2 >= 4);
        }
    }

    #[test]
    fn case_bits_tell_which_cases_a_trigram_occurs_in() {
        assert_eq!(case_bits(b'p', b'm', b'_'), LOWER);
        assert_eq!(case_bits(b'P', b'M', b'_'), UPPER);
        assert_eq!(case_bits(b'P', b'm', b'_'), 0);
        assert_eq!(case_bits(b'1', b'-', b'>'), LOWER | UPPER);
        let dir = tempfile::tempdir().expect("tempdir");
        let contents = ["PM_RESUME", "pm_resume", "Pm_Resume", "pm_resume PM_RESUME"];
        let files = write_files(dir.path(), &contents);
        let open = |p: &str| std::fs::File::open(dir.path().join(p));
        let (postings, _) = built(&files, 2, &open);
        let key = trigram(b'p', b'm', b'_');
        let with = |case| {
            postings.documents_of(&postings.sections(Gram {
                key,
                follow: 0,
                case,
            }))
        };
        assert_eq!(with(0), vec![0, 1, 2, 3]);
        assert_eq!(with(UPPER), vec![0, 3]);
        assert_eq!(with(LOWER), vec![1, 3]);
    }

    #[test]
    fn large_files_are_cut_into_sections_after_line_ends() {
        let dir = tempfile::tempdir().expect("tempdir");
        // Two sections: `alpha` in the first, `omega` in the second, and a line that crosses
        // the section size (the cut comes after it).
        let filler = "x\n".repeat(SECTION_BYTES / 2 - 8);
        let long_line = "zeta ends the first section\n";
        let big = format!("alpha\n{filler}{long_line}{filler}omega\n");
        let cuts = sections(big.as_bytes());
        assert_eq!(cuts.len(), 2, "{cuts:?}");
        let zeta = big.find("zeta").expect("zeta");
        assert!(zeta < SECTION_BYTES && zeta + long_line.len() > SECTION_BYTES);
        assert_eq!(
            cuts[0],
            0..zeta + long_line.len(),
            "a line stays in one section"
        );
        assert_eq!(cuts[1].end, big.len());
        std::fs::write(dir.path().join("big.txt"), &big).expect("write");
        std::fs::write(dir.path().join("small.txt"), "omega alpha").expect("write");
        let files = vec![
            ("big.txt".to_string(), big.len() as u64),
            ("small.txt".to_string(), 11),
        ];
        let open = |p: &str| std::fs::File::open(dir.path().join(p));
        for threads in [1, 2] {
            let (postings, _) = built(&files, threads, &open);
            let alp = postings.sections(gram(trigram(b'a', b'l', b'p'), 0));
            let ome = postings.sections(gram(trigram(b'o', b'm', b'e'), 0));
            assert_eq!(alp, vec![0, 2]);
            assert_eq!(ome, vec![1, 2]);
            // Both words are in the big file, but in no one section of it.
            assert_eq!(intersect(&alp, &ome), vec![2]);
            // Where each section starts in its file, and where the next one of the file does.
            assert_eq!(
                postings.section_span(0),
                Some((0, Some(cuts[1].start as u64)))
            );
            assert_eq!(postings.section_span(1), Some((cuts[1].start as u64, None)));
            assert_eq!(postings.section_span(2), Some((0, None)));
            assert_eq!(postings.section_span(3), None);
            assert_eq!(postings.documents_of(&alp), vec![0, 1]);
            assert_eq!(postings.documents_of(&union(&alp, &ome)), vec![0, 1]);
            // The mask of the section's last trigram sees the next section's first bytes.
            let on = trigram(b'o', b'n', b'\n');
            assert_eq!(
                postings.sections(gram(on, follow_bits(Some(b'x'), Some(b'\n')))),
                vec![0]
            );
        }
    }
}
