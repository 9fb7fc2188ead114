//! The comparison JSON validates against schemas/compare.schema.json (2020-12), for real
//! traces with repeats and for hand-made reports with missing metrics and tasks.

use crate::compare_support::*;
use analysis::compare::{compare, Options};
use serde_json::Value;

fn validator() -> jsonschema::Validator {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../schemas/compare.schema.json"
    );
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    jsonschema::draft202012::new(&schema).expect("valid schema")
}

fn assert_valid(v: &jsonschema::Validator, json: &Value) {
    let errors: Vec<String> = v
        .iter_errors(json)
        .map(|e| format!("{} at {}", e, e.instance_path))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
}

#[test]
fn comparisons_validate() {
    let v = validator();
    let runs = vec![
        run("cfs", vec![load("cfs-6.1-vm/mi/trace-v6.dat.xz")]),
        run(
            "pds",
            vec![
                load("pds-6.1-vm/mi/trace-v6.dat.xz"),
                load("pds-6.1-vm/mi-repeat/trace-v6.dat.xz"),
            ],
        ),
    ];
    let c = compare(&runs, &Options::default()).unwrap();
    let json = serde_json::to_value(&c).unwrap();
    assert_valid(&v, &json);
    // Nulls are where the schema allows them: a CV with one repeat, a task missing.
    assert!(json["system"][0]["cells"][0]["cv_pct"].is_null());
    assert!(json["system"][0]["cells"][1]["cv_pct"].is_number());

    // The JSON reads back into the same comparison.
    let back: analysis::compare::Comparison = serde_json::from_value(json.clone()).unwrap();
    assert_eq!(back, c);

    // A schema violation is caught (the validator is not vacuous).
    let mut broken = serde_json::to_value(&c).unwrap();
    broken["system"][0]["cells"][0]["flag"] = Value::String("!".into());
    assert!(v.iter_errors(&broken).next().is_some());
    // The explanation is described too (with every role, so that some are in both runs):
    // its parts' kinds are the four.
    let all = Options {
        top: 1000,
        ..Options::default()
    };
    let c = compare(&runs, &all).unwrap();
    let json = serde_json::to_value(&c).unwrap();
    assert_valid(&v, &json);
    let subjects = json["explain"]["subjects"].as_array().unwrap();
    let at = subjects
        .iter()
        .position(|s| s["changes"].as_array().is_some_and(|c| !c.is_empty()))
        .expect("a role in both runs");
    let mut broken = serde_json::to_value(&c).unwrap();
    broken["explain"]["subjects"][at]["changes"][0]["components"][0]["kind"] = "waiting".into();
    assert!(v.iter_errors(&broken).next().is_some());
}
