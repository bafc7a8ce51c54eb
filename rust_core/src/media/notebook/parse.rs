//! The notebook's JSON, parsed with serde into only what is shown, in memory bounded by the page.
//!
//! serde_json parses from the bytes already read (within the notebook cap) with its recursion
//! limit (128 levels: a deeply nested notebook is an error, not a stack overflow). The cell list
//! is visited element by element: cells outside the asked page are skipped as
//! [`IgnoredAny`] (counted, never stored), so a notebook of millions of cells costs no more
//! memory than one of ten. Within a kept cell the first [`MAX_OUTPUTS_KEPT`] outputs are kept
//! (the rest counted), multi-line fields are joined into one string as they are read (no
//! per-line allocation), and of an output's data only `text/plain` and the `image/*` entries
//! are kept.

use std::fmt;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// Outputs kept per cell; further ones are counted as withheld.
pub(super) const MAX_OUTPUTS_KEPT: usize = 100;

/// A multi-line field: a string, or a list of strings joined with `separator`.
struct Joined {
    separator: &'static str,
}

impl<'de> Visitor<'de> for Joined {
    type Value = String;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string or a list of strings")
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<String, E> {
        Ok(value.to_string())
    }

    fn visit_string<E: de::Error>(self, value: String) -> Result<String, E> {
        Ok(value)
    }

    fn visit_unit<E: de::Error>(self) -> Result<String, E> {
        Ok(String::new())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<String, A::Error> {
        let mut out = String::new();
        let mut first = true;
        while let Some(part) = seq.next_element::<std::borrow::Cow<'de, str>>()? {
            if !first {
                out.push_str(self.separator);
            }
            first = false;
            out.push_str(&part);
        }
        Ok(out)
    }
}

/// nbformat's multi-line string (`source`, `text`): the lines keep their own newlines.
#[derive(Debug, Default)]
pub(super) struct Text(pub String);

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Text, D::Error> {
        deserializer
            .deserialize_any(Joined { separator: "" })
            .map(Text)
    }
}

/// A list of lines without newlines (an error's `traceback`), joined with `\n`.
#[derive(Debug, Default)]
pub(super) struct Lines(pub String);

impl<'de> Deserialize<'de> for Lines {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Lines, D::Error> {
        deserializer
            .deserialize_any(Joined { separator: "\n" })
            .map(Lines)
    }
}

/// Of an output's `data`: the `text/plain` entry and the `image/*` entries (media type, value).
#[derive(Debug, Default)]
pub(super) struct Bundle {
    pub plain: Option<String>,
    pub images: Vec<(String, String)>,
}

impl<'de> Deserialize<'de> for Bundle {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Bundle, D::Error> {
        struct BundleVisitor;
        impl<'de> Visitor<'de> for BundleVisitor {
            type Value = Bundle;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a map of media types")
            }

            fn visit_unit<E: de::Error>(self) -> Result<Bundle, E> {
                Ok(Bundle::default())
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Bundle, A::Error> {
                let mut out = Bundle::default();
                while let Some(key) = map.next_key::<String>()? {
                    if key == "text/plain" {
                        out.plain = Some(map.next_value::<Text>()?.0);
                    } else if key.starts_with("image/") {
                        let value = map.next_value::<Text>()?.0;
                        out.images.push((key, value));
                    } else {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                Ok(out)
            }
        }
        deserializer.deserialize_any(BundleVisitor)
    }
}

/// One output as read (nbformat 4 and 3 fields).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct RawOutput {
    pub output_type: String,
    /// The stream's name (4).
    pub name: Option<String>,
    /// The stream's name (3).
    pub stream: Option<String>,
    /// A stream's text (4, 3), a result's plain text (3).
    pub text: Option<Text>,
    pub data: Bundle,
    pub ename: Option<String>,
    pub evalue: Option<String>,
    pub traceback: Lines,
    /// Images of nbformat 3 (base64).
    pub png: Option<Text>,
    pub jpeg: Option<Text>,
}

/// Outputs, the first [`MAX_OUTPUTS_KEPT`] kept and the rest counted.
#[derive(Debug, Default)]
pub(super) struct Outputs {
    pub kept: Vec<RawOutput>,
    pub withheld: u64,
}

impl<'de> Deserialize<'de> for Outputs {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Outputs, D::Error> {
        struct OutputsVisitor;
        impl<'de> Visitor<'de> for OutputsVisitor {
            type Value = Outputs;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list of outputs")
            }

            fn visit_unit<E: de::Error>(self) -> Result<Outputs, E> {
                Ok(Outputs::default())
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Outputs, A::Error> {
                let mut out = Outputs::default();
                loop {
                    if out.kept.len() < MAX_OUTPUTS_KEPT {
                        match seq.next_element::<RawOutput>()? {
                            Some(output) => out.kept.push(output),
                            None => break,
                        }
                    } else if seq.next_element::<IgnoredAny>()?.is_some() {
                        out.withheld += 1;
                    } else {
                        break;
                    }
                }
                Ok(out)
            }
        }
        deserializer.deserialize_any(OutputsVisitor)
    }
}

/// One cell as read (nbformat 4 and 3 fields).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct RawCell {
    pub cell_type: String,
    pub id: Option<String>,
    pub source: Text,
    /// A code cell's source (3).
    pub input: Option<Text>,
    pub execution_count: Option<u64>,
    /// A code cell's execution count (3).
    pub prompt_number: Option<u64>,
    /// A heading cell's level (3).
    pub level: Option<u64>,
    pub outputs: Outputs,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct KernelSpec {
    language: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct LanguageInfo {
    name: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Metadata {
    kernelspec: Option<KernelSpec>,
    language_info: Option<LanguageInfo>,
    /// Where some nbformat 3 writers kept it.
    language: Option<String>,
}

/// What a parse keeps: the header fields, the total cell count and the cells of the page.
#[derive(Debug, Default)]
pub(super) struct Parsed {
    pub nbformat: Option<u64>,
    pub nbformat_minor: Option<u64>,
    pub language: Option<String>,
    /// Cells in all (both formats: the cells of every nbformat 3 worksheet, in order).
    pub total: u64,
    /// The kept cells, with their 0-based index.
    pub cells: Vec<(u64, RawCell)>,
    /// Whether a cell list (`cells`, or `worksheets`) was found.
    pub has_cells: bool,
}

/// Parses `bytes`, keeping the cells whose 0-based index lies in `first..first + count`.
pub(super) fn parse(bytes: &[u8], first: u64, count: u64) -> Result<Parsed, serde_json::Error> {
    let mut parsed = Parsed::default();
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    NotebookSeed {
        first,
        count,
        out: &mut parsed,
    }
    .deserialize(&mut deserializer)?;
    deserializer.end()?;
    Ok(parsed)
}

struct NotebookSeed<'a> {
    first: u64,
    count: u64,
    out: &'a mut Parsed,
}

impl<'de> DeserializeSeed<'de> for NotebookSeed<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for NotebookSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a notebook (a JSON object)")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "nbformat" => self.out.nbformat = map.next_value()?,
                "nbformat_minor" => self.out.nbformat_minor = map.next_value()?,
                "metadata" => {
                    let metadata: Metadata = map.next_value()?;
                    self.out.language = metadata
                        .kernelspec
                        .and_then(|k| k.language)
                        .or(metadata.language_info.and_then(|l| l.name))
                        .or(metadata.language);
                }
                "cells" => {
                    self.out.has_cells = true;
                    map.next_value_seed(CellsSeed {
                        first: self.first,
                        count: self.count,
                        out: &mut *self.out,
                    })?;
                }
                "worksheets" => {
                    self.out.has_cells = true;
                    map.next_value_seed(WorksheetsSeed {
                        first: self.first,
                        count: self.count,
                        out: &mut *self.out,
                    })?;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

/// A cell list: the cells of the page kept, the others counted.
struct CellsSeed<'a> {
    first: u64,
    count: u64,
    out: &'a mut Parsed,
}

impl<'de> DeserializeSeed<'de> for CellsSeed<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for CellsSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of cells")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        loop {
            let index = self.out.total;
            let wanted = index >= self.first && index - self.first < self.count;
            if wanted {
                match seq.next_element::<RawCell>()? {
                    Some(cell) => self.out.cells.push((index, cell)),
                    None => return Ok(()),
                }
            } else if seq.next_element::<IgnoredAny>()?.is_none() {
                return Ok(());
            }
            self.out.total += 1;
        }
    }
}

/// nbformat 3's `worksheets`: each one's `cells` continue the numbering.
struct WorksheetsSeed<'a> {
    first: u64,
    count: u64,
    out: &'a mut Parsed,
}

impl<'de> DeserializeSeed<'de> for WorksheetsSeed<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for WorksheetsSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of worksheets")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq
            .next_element_seed(WorksheetSeed {
                first: self.first,
                count: self.count,
                out: &mut *self.out,
            })?
            .is_some()
        {}
        Ok(())
    }
}

struct WorksheetSeed<'a> {
    first: u64,
    count: u64,
    out: &'a mut Parsed,
}

impl<'de> DeserializeSeed<'de> for WorksheetSeed<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for WorksheetSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a worksheet (a JSON object)")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            if key == "cells" {
                map.next_value_seed(CellsSeed {
                    first: self.first,
                    count: self.count,
                    out: &mut *self.out,
                })?;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
    }
}
