//! The n-gram index of file contents: for every trigram of ASCII-lowercased bytes, the sorted
//! list of the sections of files holding it, delta- and varint-encoded in one byte vector. Each
//! entry also carries
//! - a mask of what follows the trigram there (hashed bits of the next byte and of the next
//!   two, in the spirit of Cursor's "3.5-gram" index): a query for `cassini` asks for `cas`
//!   followed by `s` and `si`, `ass` followed by `i` and `in`, and so on, which narrows almost as
//!   much as four- and five-grams. One byte, or two where one would be nearly full
//!   ([`WIDE_FROM_BITS`](encoding::WIDE_FROM_BITS)); none in the lists of trigrams found in half the sections or more
//!   ([`BARE_FROM_PERCENT`](encoding::BARE_FROM_PERCENT));
//! - two case bits, kept in the low bits of the delta: whether the trigram occurs there with its
//!   letters all lowercase, all uppercase (see [`case_bits`]). Keys over lowercased bytes let a
//!   case-insensitive query narrow as well as an exact one; the bits let `PM_RESUME` pass over
//!   the files that only say `pm_resume`.
//!
//! The entries are sections rather than files: a file is cut after the first line end at or
//! past every [`SECTION_BYTES`](build::SECTION_BYTES) bytes, and each section holds the trigrams that start in it
//! (their follow masks still see the bytes after the section's end). Most files are one section.
//! A large file is several, so its masks do not fill up, and a query whose matches lie within
//! one line (every search but a multiline one) asks for all its trigrams in one section: in the
//! Linux tree, a literal made of two common words used to select every multi-megabyte register
//! header holding both; now it selects none of them.
//!
//! The lists are built per thread over contiguous, path-ordered file ranges, so no merge sort
//! is needed; the threads' pieces of each list are concatenated as they are written into the
//! index file, where queries read them in place (mapped). Lookups binary-search the sorted
//! trigram keys.
//!
//! The parts: `grams` (trigram keys, follow masks, case bits, the build's scan), `encoding`
//! (the layout of the lists), `build` (reading files into lists in memory), `lists` (those
//! lists, per thread and whole), `write` (lists into an index file, appended to a base's),
//! `view` (the lists read in place from the file), `query` (looking lists up) and `contents`
//! (the bytes of the small files, held in the index file so that a search need not open them).

mod build;
mod contents;
mod encoding;
mod grams;
mod lists;
mod query;
mod view;
mod write;

pub(crate) use build::Indexed;
pub(crate) use contents::{Contents, MAX_HELD_BYTES, write_contents};
pub(crate) use grams::{Gram, LOWER, UPPER, case_bits, follow_bits, lower, trigram};
pub(crate) use lists::Built;
pub(crate) use query::{intersect, union};
pub(crate) use view::{Backing, Postings};
pub(crate) use write::write_postings;
