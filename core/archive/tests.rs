//! The archive's lines as the book describes them.

use super::{Kind, Record};
use serde_json::json;

#[test]
fn a_record_is_one_json_object_with_its_kind_in_snake_case() {
    let record = Record {
        kind: Kind::File,
        row: json!({"id": "f"}),
        content: Some("AAE=".into()),
    };
    let line = serde_json::to_string(&record).expect("encodes");
    assert_eq!(line, r#"{"kind":"file","row":{"id":"f"},"content":"AAE="}"#);
    let plain = serde_json::to_string(&Record::new(Kind::Partial, json!({}))).expect("encodes");
    assert_eq!(plain, r#"{"kind":"partial","row":{}}"#);
}

#[test]
fn an_unknown_kind_is_refused() {
    let read = serde_json::from_str::<Record>(r#"{"kind":"key","row":{}}"#);
    assert!(read.is_err(), "{read:?}");
}
