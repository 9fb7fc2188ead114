//! `schemas/export.md`, made from the tables' own column lists (a test checks that the
//! committed file is what this gives, so the document cannot drift from the code).

use crate::tables::{Table, SCHEMA_VERSION};
use std::fmt::Write;

pub(crate) fn markdown() -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# schedtrace export: tables and columns (schema version {SCHEMA_VERSION})\n"
    );
    s.push_str(
        "Written by `schedtrace export`; generated from the code (`export/src/schema_doc.rs`), do not edit.\n\
         The version rises when a column is removed, renamed or retyped; new columns do not raise it.\n\n\
         Layout (Hive partitions): `DIR/<table>/run=<run>/part-<repeat>.<csv|ndjson|parquet>`, and\n\
         `DIR/_schedtrace_export.json` (format, schema version, the runs and their files). Every table\n\
         has the partition column `run` (the run's label made path-safe: letters, digits, `.`, `-`;\n\
         anything else `_`; the `runs` table has the label itself), given by the reader from the path.\n\
         A run's repeats (0, 1, ...) are its files `part-0`, `part-1`, ...: the `runs` table has the\n\
         column `repeat`; the other tables' rows tell theirs by file (`filename = true` in DuckDB,\n\
         `include_file_paths` in polars). Read `run` as a string (`hive_types` in DuckDB,\n\
         `schema_overrides`/`hive_schema` in polars): a label such as `6.1` would otherwise be a number.\n\n\
         Times are the trace clock in ns; integers are int64, null where a value is not defined.\n\
         Units: `ns`, `count`, `fraction` (0..1), `1/s`, `number`, `cpu` (a CPU number), `pid`.\n",
    );
    for table in Table::ALL {
        let _ = writeln!(s, "\n## `{}`\n\n{}.\n", table.name(), table.doc());
        s.push_str("| column | type | unit | meaning |\n|---|---|---|---|\n");
        for c in table.columns() {
            let _ = writeln!(
                s,
                "| `{}` | {} | {} | {} |",
                c.name,
                c.kind.name(),
                c.unit,
                c.doc.replace('|', "\\|")
            );
        }
    }
    s
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_committed_schema_is_the_generated_one() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../schemas/export.md");
        let committed = std::fs::read_to_string(path).unwrap_or_default();
        let generated = super::markdown();
        if committed != generated {
            if std::env::var_os("SCHEDTRACE_BLESS").is_some() {
                std::fs::write(path, &generated).unwrap();
                return;
            }
            panic!("schemas/export.md is stale: run with SCHEDTRACE_BLESS=1 to rewrite it");
        }
    }

    #[test]
    fn column_names_are_unique_per_table() {
        for table in crate::Table::ALL {
            let mut names: Vec<String> = table.columns().into_iter().map(|c| c.name).collect();
            let n = names.len();
            names.sort();
            names.dedup();
            assert_eq!(names.len(), n, "{}", table.name());
            assert!(!names.iter().any(|c| c == "run"), "the partition column");
        }
    }
}
