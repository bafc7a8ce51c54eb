use super::*;

fn parsed_page(json: &str, first: u64, count: u64) -> parse::Parsed {
    parse::parse(json.as_bytes(), first, count).expect("parses")
}

const V4: &str = r##"{
 "nbformat": 4, "nbformat_minor": 5,
 "metadata": {"kernelspec": {"language": "python", "name": "python3"}},
 "cells": [
  {"cell_type": "markdown", "id": "m1", "metadata": {}, "source": ["# Title\n", "text"]},
  {"cell_type": "code", "id": "c1", "execution_count": 3, "metadata": {}, "source": "print(1)\n1/0",
   "outputs": [
    {"output_type": "stream", "name": "stdout", "text": ["1\n"]},
    {"output_type": "error", "ename": "ZeroDivisionError", "evalue": "division by zero",
     "traceback": ["\u001b[0;31mZeroDivisionError\u001b[0m: division by zero", "line 2"]},
    {"output_type": "display_data", "metadata": {},
     "data": {"text/plain": ["<Figure>"], "image/png": "iVBORw0KGgo=\n", "application/json": {"a": [1, 2]}}}
   ]},
  {"cell_type": "raw", "metadata": {}, "source": ""}
 ]}"##;

#[test]
fn nbformat4_cells_outputs_and_errors() {
    let parsed = parsed_page(V4, 0, 10);
    assert_eq!((parsed.nbformat, parsed.total), (Some(4), 3));
    assert_eq!(parsed.language.as_deref(), Some("python"));
    let cells: Vec<NotebookCell> = parsed
        .cells
        .into_iter()
        .map(|(i, c)| shown_cell(i + 1, c, 1000))
        .collect();
    assert_eq!(cells[0].kind, CellKind::Markdown);
    assert_eq!(cells[0].source, "# Title\ntext");
    assert_eq!(cells[0].id.as_deref(), Some("m1"));
    let code = &cells[1];
    assert_eq!((code.kind, code.execution_count), (CellKind::Code, Some(3)));
    assert_eq!(code.outputs[0].text, "1\n");
    assert_eq!(code.outputs[0].name.as_deref(), Some("stdout"));
    assert_eq!(code.outputs[1].output_type, OutputKind::Exception);
    assert_eq!(
        code.outputs[1].text,
        "ZeroDivisionError: division by zero\nline 2"
    );
    assert_eq!(code.outputs[2].text, "<Figure>");
    assert_eq!(code.outputs[2].images[0].media_type, "image/png");
    assert_eq!(code.outputs[2].images[0].size_bytes, 8);
    assert_eq!(cells[2].kind, CellKind::Raw);
}

#[test]
fn only_the_page_is_kept_and_the_total_is_exact() {
    let cells: Vec<String> = (0..1000)
        .map(|i| format!(r#"{{"cell_type": "code", "source": "x = {i}", "outputs": []}}"#))
        .collect();
    let json = format!(r#"{{"nbformat": 4, "cells": [{}]}}"#, cells.join(","));
    let parsed = parsed_page(&json, 500, 3);
    assert_eq!(parsed.total, 1000);
    let sources: Vec<&str> = parsed
        .cells
        .iter()
        .map(|(_, c)| c.source.0.as_str())
        .collect();
    assert_eq!(sources, ["x = 500", "x = 501", "x = 502"]);
}

#[test]
fn nbformat3_worksheets_inputs_and_headings() {
    let json = r#"{"nbformat": 3, "nbformat_minor": 0, "metadata": {"name": "old"},
      "worksheets": [
        {"cells": [{"cell_type": "heading", "level": 2, "source": ["Part\n", "one"]},
                   {"cell_type": "code", "language": "python", "input": ["a = 1\n", "a"],
                    "prompt_number": 7,
                    "outputs": [{"output_type": "pyout", "prompt_number": 7, "text": ["1"]},
                                {"output_type": "stream", "stream": "stderr", "text": "warn"},
                                {"output_type": "pyerr", "ename": "E", "evalue": "v", "traceback": []}]}]},
        {"cells": [{"cell_type": "markdown", "source": "second sheet"}]}]}"#;
    let parsed = parsed_page(json, 0, 10);
    assert_eq!(parsed.total, 3);
    let cells: Vec<NotebookCell> = parsed
        .cells
        .into_iter()
        .map(|(i, c)| shown_cell(i + 1, c, 1000))
        .collect();
    assert_eq!(cells[0].source, "## Part one");
    assert_eq!(cells[0].kind, CellKind::Markdown);
    assert_eq!(cells[1].source, "a = 1\na");
    assert_eq!(cells[1].execution_count, Some(7));
    assert_eq!(cells[1].outputs[0].output_type, OutputKind::ExecuteResult);
    assert_eq!(cells[1].outputs[0].text, "1");
    assert_eq!(cells[1].outputs[1].name.as_deref(), Some("stderr"));
    assert_eq!(cells[1].outputs[2].text, "E: v");
    assert_eq!(cells[2].source, "second sheet");
}

#[test]
fn the_output_budget_is_per_cell() {
    let json = r#"{"nbformat": 4, "cells": [{"cell_type": "code", "source": "",
      "outputs": [{"output_type": "stream", "name": "stdout", "text": "abcdef"},
                  {"output_type": "stream", "name": "stdout", "text": "ghij"}]}]}"#;
    let (_, raw) = parsed_page(json, 0, 1).cells.remove(0);
    let cell = shown_cell(1, raw, 8);
    assert_eq!(
        (cell.outputs[0].text.as_str(), cell.outputs[0].cut_from),
        ("abcdef", None)
    );
    assert_eq!(
        (cell.outputs[1].text.as_str(), cell.outputs[1].cut_from),
        ("gh", Some(4))
    );
}

#[test]
fn deep_nesting_and_garbage_are_answered_without_recursion() {
    // What is not shown is skipped by serde_json without recursion: 100,000 levels cost nothing.
    let deep = format!(
        r#"{{"nbformat": 4, "cells": [{{"metadata": {}{}, "source": "x"}}, {}{}]}}"#,
        "[".repeat(100_000),
        "]".repeat(100_000),
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let parsed = parse::parse(deep.as_bytes(), 0, 1).expect("parses");
    assert_eq!(parsed.total, 2);
    assert_eq!(parsed.cells[0].1.source.0, "x");
    // Where a value is shown, nesting is a type error at its first level.
    let nested = format!(
        r#"{{"cells": [{{"source": {}{}}}]}}"#,
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    assert!(parse::parse(nested.as_bytes(), 0, 1).is_err());
    assert!(parse::parse(b"[1, 2]", 0, 10).is_err());
    assert!(parse::parse(b"{\"cells\": [", 0, 10).is_err());
}
