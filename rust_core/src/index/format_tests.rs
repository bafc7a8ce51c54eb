//! Tests of the index file's container.

use super::*;

#[test]
fn partition_point_is_the_slices() {
    let sorted = [1u32, 3, 3, 3, 7, 9, 9, 12];
    for len in 0..=sorted.len() {
        for want in 0..14 {
            assert_eq!(
                partition_point(len, |k| sorted[k] < want),
                sorted[..len].partition_point(|&v| v < want),
                "{want} in the first {len}"
            );
        }
    }
}

fn sample(data: &[u8]) -> Vec<u8> {
    let mut w = Writer::new(std::io::Cursor::new(Vec::new()), &TRIGRAMS).expect("writer");
    for kind in KINDS {
        match kind {
            Kind::DataCrcs | Kind::ContentCrcs => {}
            Kind::Data | Kind::Content => {
                w.begin(kind).expect("begin");
                for chunk in data.chunks(777) {
                    w.write(chunk).expect("write");
                }
                w.end().expect("end");
            }
            _ => w.section(kind, &[kind as u8; 5]).expect("section"),
        }
    }
    w.finish().expect("finish").into_inner()
}

#[test]
fn a_written_file_checks_and_its_sections_read_back() {
    let data: Vec<u8> = (0..(DATA_BLOCK * 2 + 100)).map(|i| i as u8).collect();
    let file = sample(&data);
    let sections = Sections::check(&file, &TRIGRAMS).expect("valid");
    assert_eq!(&file[sections.span(Kind::Data)], &data[..]);
    assert_eq!(&file[sections.span(Kind::Lasts)], &[8u8; 5]);
    assert_eq!(&file[sections.span(Kind::Content)], &data[..]);
    for kind in [Kind::Data, Kind::Content] {
        let check = BlockCheck::new(&sections, kind);
        assert!(check.intact(&file, 0..data.len()));
    }
}

#[test]
fn every_damage_is_found() {
    let data: Vec<u8> = (0..(DATA_BLOCK + 10)).map(|i| (i * 7) as u8).collect();
    let file = sample(&data);
    let sections = Sections::check(&file, &TRIGRAMS).expect("valid");
    let lazy = [Kind::Data, Kind::Content].map(|kind| (kind, sections.span(kind)));
    // Truncation at every length short of the whole file.
    for cut in [0, 1, 8, 100, file.len() / 2, file.len() - 1] {
        assert!(
            Sections::check(&file[..cut], &TRIGRAMS).is_err(),
            "cut {cut}"
        );
    }
    let mut longer = file.clone();
    longer.push(0);
    assert!(Sections::check(&longer, &TRIGRAMS).is_err());
    // A flipped bit anywhere outside the lazily checked bytes (posting lists, contents) fails
    // the open; inside them, the check of the block that holds it.
    let mut rng = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..400 {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        let at = (rng % file.len() as u64) as usize;
        let mut bad = file.clone();
        bad[at] ^= 1 << (rng >> 61);
        match Sections::check(&bad, &TRIGRAMS) {
            Err(_) => assert!(lazy.iter().all(|(_, span)| !span.contains(&at)), "{at}"),
            Ok(s) => {
                let (kind, data_span) = lazy
                    .iter()
                    .find(|(_, span)| span.contains(&at))
                    .unwrap_or_else(|| panic!("{at} passed unchecked"));
                let check = BlockCheck::new(&s, *kind);
                let block = (at - data_span.start) / DATA_BLOCK;
                let other = if block == 0 { 1 } else { 0 };
                assert!(check.intact(&bad, other * DATA_BLOCK..other * DATA_BLOCK + 1));
                assert!(!check.intact(&bad, at - data_span.start..at - data_span.start + 1));
                assert!(check.damaged());
            }
        }
    }
    let mut other_version = file.clone();
    other_version[7] = b'6';
    assert_eq!(
        Sections::check(&other_version, &TRIGRAMS).err(),
        Some(Invalid("another format or version"))
    );
}
