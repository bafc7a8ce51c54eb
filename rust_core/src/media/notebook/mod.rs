//! Jupyter notebooks (`.ipynb`, nbformat 4 and 3) as numbered cells with their outputs.
//!
//! A notebook is JSON: it is read whole, but only when it is at most `max_bytes` (64 MB by
//! default; a larger one is refused unread, whatever it holds, so a notebook with a 1 GB output
//! answers at once). Streaming past a huge output instead would still cost a pass over the
//! whole file per page and per cell image; real notebooks stay far below the cap. The parse
//! ([`parse`]) keeps only the cells of the asked page, so memory follows the page, not the
//! file. nbformat 3's `worksheets`, `input`, `prompt_number`, heading cells and
//! `pyout`/`pyerr` outputs are read as their nbformat 4 counterparts (a heading becomes a
//! markdown cell starting with `#`s, as nbformat's own conversion does).
//!
//! Outputs: stream text, the `text/plain` of results and displays, and errors (name, value and
//! traceback with ANSI escape codes removed, by `strip-ansi-escapes`), their text cut to
//! `max_output_chars` per cell; images are named (media type, size) and read by
//! [`notebook_images`] through the image pipeline of [`super::image`].

use std::ffi::OsString;

use base64::Engine as _;

use super::image::{ImageBounds, ImageOutput, check_bounds, prepare};
use super::{Refusal, open, read_capped, real_path};
use crate::budget::CancelToken;
use crate::error::CoreError;
use crate::workspace::Workspace;

mod parse;

use parse::{RawCell, RawOutput};

/// Cells one read returns by default.
pub const DEFAULT_NOTEBOOK_LIMIT: usize = 20;
/// Characters of output text shown per cell by default.
pub const DEFAULT_OUTPUT_CHARS: usize = 2000;
/// Notebooks larger than this are refused unread (64 MB).
pub const DEFAULT_NOTEBOOK_MAX_BYTES: u64 = 64_000_000;

/// What to read.
#[derive(Clone, Debug)]
pub struct NotebookOptions {
    /// File path, relative to the root or absolute inside it.
    pub path: OsString,
    /// 1-based first cell.
    pub offset: u64,
    /// Cells returned at most.
    pub limit: usize,
    /// Characters of output text shown per cell (the outputs' texts together).
    pub max_output_chars: usize,
    /// Notebooks larger than this many bytes are refused unread.
    pub max_bytes: u64,
    /// Checked before and after parsing.
    pub cancel: CancelToken,
}

impl Default for NotebookOptions {
    fn default() -> Self {
        NotebookOptions {
            path: OsString::new(),
            offset: 1,
            limit: DEFAULT_NOTEBOOK_LIMIT,
            max_output_chars: DEFAULT_OUTPUT_CHARS,
            max_bytes: DEFAULT_NOTEBOOK_MAX_BYTES,
            cancel: CancelToken::default(),
        }
    }
}

crate::choice! {
    /// A cell's kind.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub enum CellKind {
        /// Code, with outputs.
        #[default]
        Code = "code",
        /// Markdown text (nbformat 3 headings too).
        Markdown = "markdown",
        /// Raw text (and any cell type nbformat does not define).
        Raw = "raw",
    }
}

crate::choice! {
    /// An output's kind.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub enum OutputKind {
        /// Text written to stdout or stderr.
        #[default]
        Stream = "stream",
        /// The value of the cell's last expression (nbformat 3: pyout).
        ExecuteResult = "execute_result",
        /// A displayed value.
        DisplayData = "display_data",
        /// An exception (nbformat 3: pyerr).
        Exception = "error",
        /// Any other output type.
        Other = "other",
    }
}

crate::record! {
    "NotebookImage",
    /// An image an output holds (read it with read_notebook_images).
    #[derive(Clone, Debug, Default, PartialEq, Eq)]
    pub struct NotebookImage {
        /// Its media type ("image/png", "image/svg+xml"...).
        pub media_type: String,
        /// Its size in bytes (decoded from base64; an SVG's text length).
        pub size_bytes: u64,
    }
}

crate::record! {
    "CellOutput",
    /// One output of a code cell.
    #[derive(Clone, Debug, Default, PartialEq, Eq)]
    pub struct CellOutput {
        /// stream, execute_result, display_data, error or other.
        pub output_type: OutputKind,
        /// A stream's name (stdout, stderr), an error's name (ValueError...); else null.
        pub name: Option<String>,
        /// The output's text (a stream's text, a result's text/plain, an error's traceback with
        /// ANSI escape codes removed), cut to what is left of the cell's output budget.
        pub text: String,
        /// The text's full length in characters when it was cut.
        pub cut_from: Option<u64>,
        /// The images the output holds.
        pub images: Vec<NotebookImage>,
    }
}

crate::record! {
    "NotebookCell",
    /// One cell.
    #[derive(Clone, Debug, Default, PartialEq, Eq)]
    pub struct NotebookCell {
        /// 1-based cell number.
        pub number: u64,
        /// code, markdown or raw.
        pub kind: CellKind,
        /// The cell's id (nbformat 4.5 and later), else null.
        pub id: Option<String>,
        /// A code cell's execution count, null when it never ran.
        pub execution_count: Option<u64>,
        /// The cell's source text.
        pub source: String,
        /// The outputs (the first 100).
        pub outputs: Vec<CellOutput>,
        /// Outputs past the first 100, not shown.
        pub outputs_withheld: u64,
    }
}

crate::record! {
    "NotebookResult",
    /// A page of a notebook's cells, or why none are shown.
    #[derive(Clone, Debug, Default, PartialEq, Eq)]
    pub struct NotebookOutput {
        /// The file, relative to the root (raw bytes, as for read_file).
        pub path: OsString,
        /// File size in bytes.
        pub size_bytes: u64,
        /// The nbformat major version (4 or 3; 0 when the file does not say).
        pub nbformat: u64,
        /// The nbformat minor version.
        pub nbformat_minor: u64,
        /// The kernel's language (from the metadata), else null.
        pub language: Option<String>,
        /// Cells in the notebook (exact).
        pub total_cells: u64,
        /// 1-based first cell asked for.
        pub offset: u64,
        /// The offset that reads on, when more cells follow.
        pub next_offset: Option<u64>,
        /// The cells of the page.
        pub cells: Vec<NotebookCell>,
        /// Why no cells are shown (too_large, undecodable); null otherwise.
        pub refused: Option<Refusal>,
        /// The facts behind a refusal (the parser's message, the size); else empty.
        pub detail: String,
    }
}

crate::record! {
    "NotebookImages",
    /// The images of one notebook cell, prepared as read_image prepares a file.
    #[derive(Clone, Debug, Default, PartialEq, Eq)]
    pub struct NotebookImages {
        /// The notebook, relative to the root (raw bytes).
        pub path: OsString,
        /// The 1-based cell asked for.
        pub cell: u64,
        /// Cells in the notebook (0 when it was refused).
        pub total_cells: u64,
        /// Each image of the cell's outputs, in order (each may be refused on its own).
        pub images: Vec<ImageOutput>,
        /// Why no image is read (too_large, undecodable, no_such_cell); null otherwise.
        pub refused: Option<Refusal>,
        /// The facts behind a refusal; else empty.
        pub detail: String,
    }
}

/// The bytes of the notebook, or the refusal that stands for them.
struct Source {
    path: OsString,
    size: u64,
    bytes: Result<Vec<u8>, (Refusal, String)>,
}

fn load(
    workspace: &Workspace,
    path: &std::ffi::OsStr,
    max_bytes: u64,
) -> Result<Source, CoreError> {
    let mut opened = open(workspace, path)?;
    let size = opened.identity.size;
    let bytes = read_capped(&mut opened, max_bytes)?.ok_or_else(|| {
        (
            Refusal::TooLarge,
            format!("the file has {size} bytes; the notebook limit is {max_bytes} bytes"),
        )
    });
    Ok(Source {
        path: real_path(&opened),
        size,
        bytes,
    })
}

fn parse_page(bytes: &[u8], first: u64, count: u64) -> Result<parse::Parsed, (Refusal, String)> {
    let parsed = parse::parse(bytes, first, count)
        .map_err(|e| (Refusal::Undecodable, format!("not a notebook: {e}")))?;
    if !parsed.has_cells {
        return Err((
            Refusal::Undecodable,
            "not a notebook: the JSON object has no cells or worksheets".to_string(),
        ));
    }
    Ok(parsed)
}

/// Reads a page of a notebook's cells.
///
/// Errors are the boundary's, I/O and invalid arguments; a notebook over the size cap or one
/// that does not parse is data in the result (`refused`).
pub fn read_notebook(
    workspace: &Workspace,
    options: &NotebookOptions,
) -> Result<NotebookOutput, CoreError> {
    if options.offset == 0 {
        return Err(CoreError::InvalidArgument {
            message: "offset is 1-based: the first cell is offset 1, not 0.".into(),
        });
    }
    if options.limit == 0 || options.max_bytes == 0 {
        return Err(CoreError::InvalidArgument {
            message: "limit and max_bytes must be at least 1.".into(),
        });
    }
    let source = load(workspace, &options.path, options.max_bytes)?;
    let mut out = NotebookOutput {
        path: source.path,
        size_bytes: source.size,
        offset: options.offset,
        ..NotebookOutput::default()
    };
    let parsed = source
        .bytes
        .and_then(|bytes| parse_page(&bytes, options.offset - 1, options.limit as u64));
    let parsed = match parsed {
        Ok(parsed) => parsed,
        Err((refusal, detail)) => {
            out.refused = Some(refusal);
            out.detail = detail;
            return Ok(out);
        }
    };
    if options.cancel.is_cancelled() {
        return Err(CoreError::Cancelled);
    }
    out.nbformat = parsed.nbformat.unwrap_or(0);
    out.nbformat_minor = parsed.nbformat_minor.unwrap_or(0);
    out.language = parsed.language;
    out.total_cells = parsed.total;
    out.cells = parsed
        .cells
        .into_iter()
        .map(|(index, cell)| shown_cell(index + 1, cell, options.max_output_chars))
        .collect();
    if let Some(last) = out.cells.last()
        && last.number < out.total_cells
    {
        out.next_offset = Some(last.number + 1);
    }
    Ok(out)
}

/// Reads the images of cell `cell` (1-based) of a notebook and prepares each within `bounds`.
pub fn notebook_images(
    workspace: &Workspace,
    path: &std::ffi::OsStr,
    cell: u64,
    max_bytes: u64,
    bounds: &ImageBounds,
) -> Result<NotebookImages, CoreError> {
    check_bounds(bounds)?;
    if cell == 0 {
        return Err(CoreError::InvalidArgument {
            message: "cell is 1-based: the first cell is cell 1, not 0.".into(),
        });
    }
    let source = load(workspace, path, max_bytes)?;
    let mut out = NotebookImages {
        path: source.path,
        cell,
        ..NotebookImages::default()
    };
    let parsed = match source
        .bytes
        .and_then(|bytes| parse_page(&bytes, cell - 1, 1))
    {
        Ok(parsed) => parsed,
        Err((refusal, detail)) => {
            out.refused = Some(refusal);
            out.detail = detail;
            return Ok(out);
        }
    };
    out.total_cells = parsed.total;
    let Some((_, raw)) = parsed.cells.into_iter().next() else {
        out.refused = Some(Refusal::NoSuchCell);
        out.detail = format!("the notebook has {} cells", parsed.total);
        return Ok(out);
    };
    for output in raw.outputs.kept {
        for (media_type, value) in output_images(output) {
            out.images
                .push(cell_image(&out.path, &media_type, &value, bounds));
        }
    }
    Ok(out)
}

/// One image of a cell, decoded from base64 and prepared.
fn cell_image(path: &OsString, media_type: &str, value: &str, bounds: &ImageBounds) -> ImageOutput {
    let mut out = ImageOutput {
        path: path.clone(),
        source_media_type: media_type.to_string(),
        ..ImageOutput::default()
    };
    if !matches!(
        media_type,
        "image/png" | "image/jpeg" | "image/gif" | "image/webp"
    ) {
        out.refused = Some(Refusal::Unsupported);
        out.detail = format!("{media_type} is not shown as an image; PNG, JPEG, GIF and WebP are");
        return out;
    }
    let compact: Vec<u8> = value.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    out.source_bytes = decoded_len(compact.len());
    if out.source_bytes > bounds.max_source_bytes {
        out.refused = Some(Refusal::TooLarge);
        out.detail = format!(
            "the image has {} bytes; the limit is {} bytes",
            out.source_bytes, bounds.max_source_bytes
        );
        return out;
    }
    match base64::engine::general_purpose::STANDARD.decode(&compact) {
        Ok(bytes) => prepare(bytes, bounds, out),
        Err(error) => {
            out.refused = Some(Refusal::Undecodable);
            out.detail = format!("the output's base64 does not decode: {error}");
            out
        }
    }
}

/// Bytes that `chars` base64 characters (padding included) decode to, at most.
fn decoded_len(chars: usize) -> u64 {
    (chars as u64).div_ceil(4) * 3
}

/// The images of an output: its `image/*` data entries (nbformat 3: `png`, `jpeg`).
fn output_images(output: RawOutput) -> Vec<(String, String)> {
    let mut images = output.data.images;
    if let Some(png) = output.png {
        images.push(("image/png".into(), png.0));
    }
    if let Some(jpeg) = output.jpeg {
        images.push(("image/jpeg".into(), jpeg.0));
    }
    images
}

fn shown_cell(number: u64, raw: RawCell, max_output_chars: usize) -> NotebookCell {
    let (kind, source) = match raw.cell_type.as_str() {
        "code" => (CellKind::Code, raw.input.unwrap_or(raw.source).0),
        "markdown" => (CellKind::Markdown, raw.source.0),
        "heading" => {
            let level = raw.level.unwrap_or(1).clamp(1, 6) as usize;
            // As nbformat's own upgrade writes it: the heading's lines joined into one.
            let line = raw.source.0.lines().collect::<Vec<_>>().join(" ");
            (CellKind::Markdown, format!("{} {line}", "#".repeat(level)))
        }
        _ => (CellKind::Raw, raw.source.0),
    };
    let mut budget = max_output_chars;
    let outputs = raw
        .outputs
        .kept
        .into_iter()
        .map(|output| shown_output(output, &mut budget))
        .collect();
    NotebookCell {
        number,
        kind,
        id: raw.id,
        execution_count: raw.execution_count.or(raw.prompt_number),
        source,
        outputs,
        outputs_withheld: raw.outputs.withheld,
    }
}

fn shown_output(raw: RawOutput, budget: &mut usize) -> CellOutput {
    let listed = named_images(&raw);
    let (kind, name, text) = match raw.output_type.as_str() {
        "stream" => (
            OutputKind::Stream,
            raw.name.or(raw.stream),
            raw.text.map(|t| t.0).unwrap_or_default(),
        ),
        "execute_result" | "pyout" => (
            OutputKind::ExecuteResult,
            None,
            raw.data.plain.or(raw.text.map(|t| t.0)).unwrap_or_default(),
        ),
        "display_data" => (
            OutputKind::DisplayData,
            None,
            raw.data.plain.or(raw.text.map(|t| t.0)).unwrap_or_default(),
        ),
        "error" | "pyerr" => {
            let text = if raw.traceback.0.is_empty() {
                format!(
                    "{}: {}",
                    raw.ename.as_deref().unwrap_or_default(),
                    raw.evalue.as_deref().unwrap_or_default()
                )
            } else {
                raw.traceback.0
            };
            (OutputKind::Exception, raw.ename, text)
        }
        _ => (
            OutputKind::Other,
            None,
            raw.text.map(|t| t.0).unwrap_or_default(),
        ),
    };
    let text = if kind == OutputKind::Exception || text.contains('\u{1b}') {
        strip_ansi_escapes::strip_str(&text)
    } else {
        text
    };
    let (text, cut_from) = cut(text, budget);
    CellOutput {
        output_type: kind,
        name,
        text,
        cut_from,
        images: listed,
    }
}

/// The images of an output, named (media type, size).
fn named_images(raw: &RawOutput) -> Vec<NotebookImage> {
    let mut named: Vec<NotebookImage> = raw
        .data
        .images
        .iter()
        .map(|(media_type, value)| image_entry(media_type, value))
        .collect();
    if let Some(png) = &raw.png {
        named.push(image_entry("image/png", &png.0));
    }
    if let Some(jpeg) = &raw.jpeg {
        named.push(image_entry("image/jpeg", &jpeg.0));
    }
    named
}

fn image_entry(media_type: &str, value: &str) -> NotebookImage {
    let size_bytes = if media_type.starts_with("image/svg") {
        value.len() as u64
    } else {
        let chars = value.bytes().filter(|b| !b.is_ascii_whitespace()).count();
        let padding = value
            .trim_end()
            .bytes()
            .rev()
            .take_while(|&b| b == b'=')
            .count();
        (chars as u64 / 4 * 3).saturating_sub(padding as u64)
    };
    NotebookImage {
        media_type: media_type.to_string(),
        size_bytes,
    }
}

/// `text` cut to what is left of `budget` characters; the full length when it was cut.
fn cut(text: String, budget: &mut usize) -> (String, Option<u64>) {
    let chars = text.chars().count();
    if chars <= *budget {
        *budget -= chars;
        return (text, None);
    }
    let kept: String = text.chars().take(*budget).collect();
    *budget = 0;
    (kept, Some(chars as u64))
}

#[cfg(test)]
mod tests;
