//! The export files' shapes (NDJSON lines as list items, RFC 4180 CSV, unique column
//! labels, formulas neutralised) and the pump's end when its reader stalls.

use super::cells::{answer_cell, column_labels};
use super::*;
use crate::forms::FieldKind;
use serde_json::json;

fn field(label: &str) -> Field {
    Field {
        id: Uuid::new_v4(),
        kind: FieldKind::ShortText,
        label: label.to_owned(),
        required: false,
        placeholder: None,
        allowed_types: vec![],
        max_size_mb: None,
        correct_answer: None,
        points: None,
        ..Field::default()
    }
}

fn row(answers: Value) -> ExportRow {
    let at = DateTime::from_timestamp_micros(1_790_000_000_123_456).expect("valid");
    ExportRow {
        id: Uuid::new_v4(),
        form_id: Uuid::new_v4(),
        answers: answers.to_string(),
        metadata: r#"{"source": "api"}"#.to_owned(),
        device_type: None,
        browser: Some("Firefox \"beta\"".to_owned()),
        os: None,
        started_at: at,
        submitted_at: at,
        completion_time_seconds: Some(12),
        page: None,
        language: Some("de".to_owned()),
    }
}

#[tokio::test]
async fn a_stalled_reader_gets_an_error_after_the_chunks_it_left() {
    let rows: Vec<Result<ExportRow, CoreError>> = (0..2_000)
        .map(|_| Ok(row(json!({"f": "z".repeat(500)}))))
        .collect();
    let (out, mut reader) = mpsc::channel(CHANNEL_DEPTH + 1);
    let encoder = Encoder::new(Format::Ndjson, &[]).expect("encoder");
    let stall = Duration::from_millis(50);
    // Nobody reads: the pump must end by itself (the deadline only guards a hang).
    tokio::time::timeout(
        Duration::from_secs(30),
        pump(tokio_stream::iter(rows), encoder, out, stall),
    )
    .await
    .expect("the pump gave up on its reader");
    for _ in 0..CHANNEL_DEPTH {
        assert!(matches!(reader.recv().await, Some(Ok(chunk)) if !chunk.is_empty()));
    }
    assert!(matches!(
        reader.recv().await,
        Some(Err(CoreError::ReaderStalled(_)))
    ));
    assert!(reader.recv().await.is_none(), "the stream ends after it");
}

#[test]
fn labels_are_unique_columns() {
    let fields = [
        field("Email"),
        field("Email"),
        field("Browser"),
        field("Email (2)"),
    ];
    assert_eq!(
        column_labels(&fields),
        ["Email", "Email (2)", "Browser (2)", "Email (2) (2)"]
    );
}

#[test]
fn formulas_are_neutralised_and_numbers_kept() {
    for risky in ["=1+1", "+1", "-1", "@SUM(A1)", "\tx", "\rx"] {
        assert_eq!(text_cell(risky), format!("'{risky}"));
    }
    assert_eq!(text_cell("a=1"), "a=1");
    assert_eq!(answer_cell(Some(&json!(-3))).csv(), "-3");
    assert_eq!(answer_cell(Some(&json!("-3"))).csv(), "'-3");
    assert_eq!(answer_cell(Some(&json!(true))).csv(), "true");
    assert_eq!(answer_cell(None).csv(), "");
    let file =
        json!({"file_id": "x", "name": "=cv.pdf", "size": 3, "content_type": "application/pdf"});
    assert_eq!(answer_cell(Some(&file)).csv(), "'=cv.pdf");
}

#[test]
fn ndjson_lines_are_the_listing_shape() {
    let r = row(json!({"f": "Ada\nLovelace"}));
    let mut e = Encoder::new(Format::Ndjson, &[]).expect("encoder");
    e.row(&r).expect("row");
    let text = String::from_utf8(e.take().expect("bytes")).expect("utf-8");
    assert_eq!(text.matches('\n').count(), 1, "{text}");
    let line: Value = serde_json::from_str(&text).expect("one JSON object");
    assert_eq!(
        line,
        json!({"id": r.id.to_string(), "form_id": r.form_id.to_string(),
               "answers": {"f": "Ada\nLovelace"}, "metadata": {"source": "api"},
               "device_type": null, "browser": "Firefox \"beta\"", "os": null,
               "started_at": "2026-09-21T14:13:20.123Z", "submitted_at": "2026-09-21T14:13:20.123Z",
               "completion_time_seconds": 12, "status": "completed", "last_page": 1,
               "language": "de"})
    );
    // A partial's line says so, at its page.
    let partial = ExportRow {
        page: Some(2),
        ..row(json!({}))
    };
    e.row(&partial).expect("row");
    let text = String::from_utf8(e.take().expect("bytes")).expect("utf-8");
    let line: Value = serde_json::from_str(&text).expect("one JSON object");
    assert_eq!(
        (&line["status"], &line["last_page"]),
        (&json!("partial"), &json!(2))
    );
}

#[test]
fn csv_rows_are_quoted_per_rfc_4180() {
    let fields = [field("Name"), field("Notes")];
    let mut e = Encoder::new(Format::Csv, &fields).expect("encoder");
    let r = row(
        json!({fields[0].id.to_string(): "Ada, \"the\" first", fields[1].id.to_string(): "=2+2\r\nline"}),
    );
    e.row(&r).expect("row");
    let text = String::from_utf8(e.take().expect("bytes")).expect("utf-8");
    let (header, rest) = text.split_once("\r\n").expect("header line");
    assert_eq!(
        header,
        "Response ID,Submitted at,Started at,Completion time (seconds),Device type,Browser,OS,Metadata,Name,Notes,Language"
    );
    assert_eq!(
        rest,
        format!(
            "{},2026-09-21T14:13:20.123Z,2026-09-21T14:13:20.123Z,12,,\"Firefox \"\"beta\"\"\",,\"{{\"\"source\"\": \"\"api\"\"}}\",\"Ada, \"\"the\"\" first\",\"'=2+2\r\nline\",de\r\n",
            r.id
        )
    );
}
