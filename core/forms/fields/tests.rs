//! Fields as they are checked on save, kind by kind, and quizzes as they are scored.

use super::*;
use serde_json::json;

fn input(kind: &str) -> FieldInput {
    FieldInput {
        kind: kind.into(),
        label: "Label".into(),
        ..FieldInput::default()
    }
}

#[test]
fn field_types_and_ids() {
    let fields = build_fields(vec![input("short_text"), input("textarea")], &[]).expect("valid");
    assert_ne!(fields[0].id, fields[1].id);
    let err = build_fields(vec![input("color")], &[]).expect_err("unknown type");
    assert!(err.to_string().contains("fields[0].type"));
    let mut stray = input("email");
    stray.id = Some(Uuid::new_v4());
    assert!(build_fields(vec![stray], &fields).is_err());
    let mut kept = input("email");
    kept.id = Some(fields[1].id);
    assert_eq!(
        build_fields(vec![kept], &fields).expect("kept")[0].id,
        fields[1].id
    );
}

#[test]
fn file_options_only_on_file_fields() {
    let mut f = input("short_text");
    f.max_size_mb = Some(5.0);
    assert!(build_fields(vec![f], &[]).is_err());
    let mut f = input("file_upload");
    f.allowed_types = vec![".PDF".into()];
    f.max_size_mb = Some(10.0);
    assert_eq!(
        build_fields(vec![f], &[]).expect("valid")[0].allowed_types,
        ["pdf"]
    );
}

#[test]
fn quiz_scoring() {
    let mut a = input("short_text");
    a.correct_answer = Some(json!("Paris"));
    a.points = Some(2);
    let mut b = input("number");
    b.correct_answer = Some(json!(4));
    let fields = build_fields(vec![a, b, input("email")], &[]).expect("valid quiz");
    let answers: Map<String, Value> = [
        (fields[0].id.to_string(), json!(" paris ")),
        (fields[1].id.to_string(), json!(5)),
    ]
    .into_iter()
    .collect();
    assert_eq!(quiz_score(&fields, &answers), Some((2, 3)));
    assert_eq!(quiz_score(&fields[2..], &answers), None);
    let mut bad = input("short_text");
    bad.points = Some(3);
    assert!(
        build_fields(vec![bad], &[]).is_err(),
        "points need a correct answer"
    );
}

fn options(labels: &[&str]) -> Vec<FieldOption> {
    labels
        .iter()
        .map(|l| FieldOption {
            id: String::new(),
            label: (*l).to_owned(),
        })
        .collect()
}

fn refused(f: FieldInput, property: &str) {
    let err = build_fields(vec![input("short_text"), f], &[]).expect_err(property);
    assert!(
        err.to_string().contains(&format!("fields[1].{property}")),
        "{err} lacks {property}"
    );
}

#[test]
fn choice_options_get_ids_and_keep_sent_ones() {
    let mut f = input("single_choice");
    f.options = options(&["Red", "Green"]);
    f.options[1].id = "green".into();
    f.allow_other = true;
    let built = build_fields(vec![f], &[]).expect("valid")[0].clone();
    assert!(built.options[0].id.starts_with("opt_"));
    assert_eq!(built.options[1].id, "green");
    assert_eq!(built.option_label("green"), Some("Green"));

    let mut none = input("dropdown");
    none.options = vec![];
    refused(none, "options");
    let mut many = input("dropdown");
    many.options = (0..=MAX_OPTIONS)
        .map(|i| FieldOption {
            id: String::new(),
            label: format!("{i}"),
        })
        .collect();
    refused(many, "options");
    let mut same = input("dropdown");
    same.options = options(&["A", " a "]);
    refused(same, "options[1].label");
    let mut long = input("dropdown");
    long.options = options(&[&"x".repeat(MAX_OPTION_LABEL + 1)]);
    refused(long, "options[0].label");
    let mut ids = input("multiple_choice");
    ids.options = options(&["A", "B"]);
    ids.options[0].id = "a".into();
    ids.options[1].id = "a".into();
    refused(ids, "options[1].id");
    let mut stray = input("short_text");
    stray.options = options(&["A"]);
    refused(stray, "options");
    let mut other = input("dropdown");
    other.options = options(&["A"]);
    other.allow_other = true;
    refused(other, "allow_other");
}

#[test]
fn selected_counts_only_on_multiple_choice() {
    let with = |min: Option<i32>, max: Option<i32>| {
        let mut f = input("multiple_choice");
        f.options = options(&["A", "B", "C"]);
        f.min_selected = min;
        f.max_selected = max;
        f
    };
    assert!(build_fields(vec![with(Some(0), Some(3))], &[]).is_ok());
    assert!(build_fields(vec![with(Some(2), Some(2))], &[]).is_ok());
    refused(with(Some(-1), None), "min_selected");
    refused(with(Some(4), None), "min_selected");
    refused(with(Some(2), Some(1)), "max_selected");
    refused(with(None, Some(4)), "max_selected");
    let mut single = input("single_choice");
    single.options = options(&["A"]);
    single.max_selected = Some(1);
    refused(single, "max_selected");
}

#[test]
fn bounds_of_rating_scale_date_and_number() {
    let bounded = |kind: &str, min: Option<Value>, max: Option<Value>| {
        let mut f = input(kind);
        f.min = min;
        f.max = max;
        f
    };
    let rating = build_fields(vec![bounded("rating", None, None)], &[]).expect("default");
    assert_eq!(rating[0].max, Some(json!(5)));
    assert_eq!(rating[0].int_bounds(), (1, 5));
    refused(bounded("rating", None, Some(json!(11))), "max");
    refused(bounded("rating", Some(json!(1)), None), "min");
    let scale = build_fields(vec![bounded("scale", None, None)], &[]).expect("default");
    assert_eq!(scale[0].int_bounds(), (0, 10));
    assert!(build_fields(vec![bounded("scale", Some(json!(9)), Some(json!(10)))], &[]).is_ok());
    refused(bounded("scale", Some(json!(3)), Some(json!(3))), "max");
    refused(bounded("scale", Some(json!(0.5)), None), "min");
    refused(bounded("date", Some(json!("2026-02-30")), None), "min");
    refused(
        bounded("date", Some(json!("2026-03-01")), Some(json!("2026-02-01"))),
        "min",
    );
    assert!(
        build_fields(
            vec![bounded(
                "date",
                Some(json!("2026-03-01")),
                Some(json!("2026-03-01"))
            )],
            &[]
        )
        .is_ok()
    );
    refused(bounded("number", Some(json!(2)), Some(json!(1))), "min");
    refused(bounded("email", Some(json!(2)), None), "min");
    let mut label = input("rating");
    label.min_label = Some("low".into());
    refused(label, "min_label");
    let mut hidden = input("hidden");
    hidden.required = true;
    refused(hidden, "required");
    assert_eq!(
        parse_date("2024-02-29"),
        chrono::NaiveDate::from_ymd_opt(2024, 2, 29)
    );
    assert_eq!(parse_date("+2024-02-29"), None);
    assert_eq!(parse_date("2024-2-29"), None);
}
