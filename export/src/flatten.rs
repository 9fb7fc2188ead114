//! Flat columns from the report's JSON rows (task, CPU): every scalar leaf of a row is a
//! column named by its JSON path with `_` for `/` (`wakeup_latency.p99_ns` becomes
//! `wakeup_latency_p99_ns`), so the export is the `analyze --json` row, field by field,
//! and a field added to the report appears in the export without code here.
//!
//! The column list and types come from a template row in which every optional field is
//! set (so no leaf is null and each JSON number tells its type: serde_json writes an f64
//! as a float even when it is whole). Arrays (names seen, histograms) are one text
//! column holding their JSON. Docs and units come from the column catalogue where it has
//! the key, else from the leaf's name.

use crate::cell::{Cell, ColumnDef, Kind, RowSink};
use analysis::columns::Column;
use serde_json::Value;

/// A flat column: where its value lives in the row's JSON, and the column it becomes.
#[derive(Debug, Clone)]
pub(crate) struct Leaf {
    /// The keys from the row down to the value. Looked up key by key rather than as a
    /// JSON pointer: `Value::pointer` splits and unescapes its text into new strings at
    /// every lookup, and the `tasks` table is written after the last event, when nothing
    /// else runs beside it (a profile of the large trace of `bench/`: 81 samples in the
    /// lookups and the serializing, 24 after).
    pub path: Vec<String>,
    pub def: ColumnDef,
}

impl Leaf {
    /// The value at this leaf's path in `row`.
    fn in_row<'a>(&self, row: &'a Value) -> Option<&'a Value> {
        self.path.iter().try_fold(row, |v, key| v.get(key.as_str()))
    }
}

/// The leaves of `template` in JSON order, documented from `catalogue`; `skip` names
/// top-level fields left out (with why in the caller), `derived` the catalogue keys whose
/// value is not the JSON field of the same path (their doc would describe another number).
pub(crate) fn leaves<Row>(
    template: &Value,
    catalogue: &[Column<Row>],
    skip: &[&str],
    derived: &[&str],
) -> Vec<Leaf> {
    let mut out = Vec::new();
    walk(template, &mut Vec::new(), skip, &mut out);
    for leaf in &mut out {
        let key = leaf.path.join(".");
        let documented = catalogue
            .iter()
            .find(|c| c.key == key && !derived.contains(&c.key));
        if let Some(c) = documented {
            if leaf.def.kind != Kind::Text {
                leaf.def.unit = c.unit.stored();
            }
            leaf.def.doc = c.doc.to_string();
        }
    }
    out
}

fn walk(v: &Value, path: &mut Vec<String>, skip: &[&str], out: &mut Vec<Leaf>) {
    match v {
        Value::Object(map) => {
            for (k, child) in map {
                if path.is_empty() && skip.contains(&k.as_str()) {
                    continue;
                }
                path.push(k.clone());
                walk(child, path, skip, out);
                path.pop();
            }
        }
        leaf => {
            let name = path.join("_");
            let kind = match leaf {
                Value::Number(n) if n.is_f64() => Kind::Real,
                Value::Number(_) => Kind::Int,
                Value::Bool(_) => Kind::Bool,
                Value::String(_) | Value::Array(_) => Kind::Text,
                Value::Null => panic!("template leaf {name} is null: set it in the template"),
                Value::Object(_) => unreachable!(),
            };
            let unit = match kind {
                Kind::Text | Kind::Bool => "",
                _ => unit_from_name(&name),
            };
            let doc = match leaf {
                Value::Array(_) => format!("`{}` of the JSON report, as JSON text", path.join(".")),
                _ => format!("`{}` of the JSON report", path.join(".")),
            };
            out.push(Leaf {
                path: path.clone(),
                def: ColumnDef::new(&name, kind, unit, &doc),
            });
        }
    }
}

/// The unit a leaf's name says, for leaves the catalogue does not describe.
fn unit_from_name(name: &str) -> &'static str {
    // The same words as `Unit::stored`.
    if name.ends_with("_ns") {
        "ns"
    } else if name.ends_with("share") || name.ends_with("utilization") {
        "fraction"
    } else if name.ends_with("per_sec") {
        "1/s"
    } else if name.ends_with("ratio") || name.ends_with("depth") || name.ends_with("jain") {
        "number"
    } else if name == "cpu" {
        "cpu"
    } else if name == "pid" || name == "tgid" {
        "pid"
    } else {
        "count"
    }
}

/// The cells of `row` (a JSON row of the same type as the template), in `leaves` order.
pub(crate) fn cells<'a>(row: &'a Value, leaves: &[Leaf], out: &mut Vec<Cell<'a>>) {
    for leaf in leaves {
        out.push(match (leaf.in_row(row), leaf.def.kind) {
            (None | Some(Value::Null), _) => Cell::Null,
            (Some(Value::Number(n)), Kind::Int) => n.as_i64().map_or(Cell::Null, Cell::Int),
            (Some(Value::Number(n)), Kind::Real) => n.as_f64().map_or(Cell::Null, Cell::Real),
            (Some(Value::Bool(b)), Kind::Bool) => Cell::Bool(*b),
            (Some(Value::String(s)), Kind::Text) => Cell::text(s.as_str()),
            (Some(a @ Value::Array(_)), Kind::Text) => Cell::text(a.to_string()),
            // A report whose field changed type: not silently misread.
            (Some(v), kind) => panic!("{}: {v} is not {}", leaf.def.name, kind.name()),
        });
    }
}

/// Streams one flat row per item of `rows` (each serialized as the JSON report does).
pub(crate) fn write_rows<'a, T: serde::Serialize + 'a>(
    rows: impl IntoIterator<Item = &'a T>,
    leaves: &[Leaf],
    sink: &mut dyn RowSink,
) -> std::io::Result<()> {
    for row in rows {
        let json = serde_json::to_value(row).map_err(std::io::Error::other)?;
        let mut cells = Vec::with_capacity(leaves.len());
        self::cells(&json, leaves, &mut cells);
        sink.row(&cells)?;
    }
    Ok(())
}
