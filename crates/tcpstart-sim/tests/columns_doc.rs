//! docs/scenarios.md lists every trace column as the tables' definitions in `trace.rs` do
//! (`columns::markdown`). With `TCPSTART_BLESS=1` (`make golden`) the lists are rewritten.

use std::path::Path;

use tcpstart_sim::columns::{markdown, schemas};

/// The line before a table's list in the document (a blank line between them, for Markdown);
/// the list ends at the next blank line.
fn marker(table: &str) -> String {
    format!("<!-- the columns of `{table}`, from crates/tcpstart-sim/src/trace.rs (make golden rewrites them) -->\n")
}

#[test]
fn the_documented_columns_are_the_tables_columns() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/scenarios.md");
    let doc = std::fs::read_to_string(&path).expect("docs/scenarios.md reads").replace("\r\n", "\n");
    let mut written = doc.clone();
    let mut stale = Vec::new();
    for schema in schemas() {
        let marker = marker(schema.table);
        let Some(start) = written.find(&format!("{marker}\n")).map(|i| i + marker.len() + 1) else {
            panic!("docs/scenarios.md has no line {marker:?} and a blank line before the columns of `{}`", schema.table)
        };
        let list: usize =
            written[start..].split_inclusive('\n').take_while(|l| !l.trim().is_empty()).map(str::len).sum();
        let end = start + list;
        let expected = markdown(&schema);
        if written[start..end] != expected {
            stale.push(schema.table);
            written.replace_range(start..end, &expected);
        }
    }
    if stale.is_empty() {
        return;
    }
    if std::env::var_os("TCPSTART_BLESS").is_some() {
        std::fs::write(&path, written).expect("docs/scenarios.md writes");
        return;
    }
    panic!(
        "docs/scenarios.md lists other columns of {stale:?} than crates/tcpstart-sim/src/trace.rs defines; \
         `make golden` rewrites the lists"
    );
}
