//! The XLSX export (`…/responses/export?format=xlsx`, gRPC EXPORT_FORMAT_XLSX): the
//! CSV's columns and rows as typed cells, read back with calamine (an independent
//! reader) and compared with the responses sent and with the CSV export cell by cell;
//! texts as strings, never formulas; `status`; a large export; the gRPC stream.

use crate::export::{Setup, csv_records, grpc_export, hosted_submission, ids, ndjson};
use crate::fixtures::*;
use calamine::{Data, Reader, Xlsx};
use forms::pb::{self, responses_service_client::ResponsesServiceClient};
use serde_json::json;
use std::io::{Cursor, Read};

const XLSX: &str = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";

/// The XLSX export, read whole, asserting 200 and the headers of a download.
async fn xlsx(s: &Setup, query: &[(&str, &str)]) -> Vec<u8> {
    let mut query = query.to_vec();
    query.push(("format", "xlsx"));
    let reply = s
        .app
        .request(reqwest::Method::GET, &s.export_path(&query))
        .header("x-api-key", &s.key)
        .send()
        .await
        .expect("export");
    assert_eq!(reply.status(), 200);
    let header = |name: &str| {
        reply
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned()
    };
    assert_eq!(header("content-type"), XLSX);
    assert_eq!(header("x-content-type-options"), "nosniff");
    assert_eq!(
        header("content-disposition"),
        format!("attachment; filename=\"responses-{}.xlsx\"", s.form_id)
    );
    assert!(!header("x-ratelimit-remaining").is_empty());
    reply.bytes().await.expect("the file").to_vec()
}

/// Every sheet's rows, in the workbook's order, as calamine reads them.
fn sheets(bytes: &[u8]) -> Vec<(String, Vec<Vec<Data>>)> {
    let mut book = Xlsx::new(Cursor::new(bytes.to_vec())).expect("an XLSX workbook");
    let mut out = Vec::new();
    for name in book.sheet_names() {
        let range = book.worksheet_range(&name).expect("a sheet");
        assert_eq!(range.start(), Some((0, 0)), "the sheet starts at A1");
        let formulas = book.worksheet_formula(&name).expect("formulas");
        assert!(
            formulas.used_cells().all(|(_, _, f)| f.is_empty()),
            "a formula in {name}"
        );
        out.push((name, range.rows().map(<[Data]>::to_vec).collect()));
    }
    out
}

/// One part of the workbook (a zip) as text.
fn part(bytes: &[u8], name: &str) -> String {
    let mut zip = zip::ZipArchive::new(Cursor::new(bytes)).expect("a zip");
    let mut text = String::new();
    zip.by_name(name)
        .expect("the part")
        .read_to_string(&mut text)
        .expect("UTF-8 XML");
    text
}

/// An Excel date-time serial as RFC 3339 with milliseconds (UTC), as the CSV writes it.
fn serial_as_rfc3339(serial: f64) -> String {
    let millis = ((serial - 25_569.0) * 86_400_000.0).round() as i64;
    chrono::DateTime::from_timestamp_millis(millis)
        .expect("in range")
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// The CSV's text of an XLSX cell, given the CSV's (to tell a date from a date-time).
fn as_csv(cell: &Data, csv: &str) -> String {
    match cell {
        Data::Empty => String::new(),
        Data::String(s) if s.starts_with(['=', '+', '-', '@', '\t', '\r']) => format!("'{s}"),
        Data::String(s) => s.clone(),
        Data::Float(f) => f.to_string(),
        Data::DateTime(at) if csv.len() == 10 => serial_as_rfc3339(at.as_f64())[..10].to_owned(),
        Data::DateTime(at) => serial_as_rfc3339(at.as_f64()),
        other => panic!("an unexpected cell {other:?}"),
    }
}

/// The workbook's rows are the CSV's, cell by cell.
fn assert_same_as_csv(rows: &[Vec<Data>], csv: &str) {
    let records = csv_records(csv);
    assert_eq!(rows.len(), records.len(), "rows");
    for (row, record) in rows.iter().zip(&records) {
        assert_eq!(row.len(), record.len(), "{record:?}");
        for (cell, text) in row.iter().zip(record) {
            assert_eq!(&as_csv(cell, text), text, "{row:?}");
        }
    }
}

fn string(text: &str) -> Data {
    Data::String(text.to_owned())
}

#[tokio::test]
async fn xlsx_export_has_the_csv_columns_as_typed_cells_and_no_formulas() {
    let s = Setup::new(json!([
        {"type": "short_text", "label": "Name", "required": true},
        {"type": "email", "label": "Email", "required": false},
        {"type": "short_text", "label": "Name", "required": false},
        {"type": "long_text", "label": "Notes", "required": false},
        {"type": "number", "label": "Age", "required": false},
        {"type": "file_upload", "label": "Photo", "required": false, "allowed_types": ["png"]},
        {"type": "date", "label": "Born", "required": false},
        {"type": "scale", "label": "Recommend?", "required": false, "min": 0, "max": 10},
        {"type": "single_choice", "label": "=Colour", "required": false, "allow_other": true,
         "options": [{"id": "red", "label": "-Red"}, {"id": "blue", "label": "Blue"}]},
        {"type": "checkbox", "label": "Agree", "required": false},
    ]))
    .await;
    let f = &s.fields;
    let first = s
        .create(json!({
            f[0].clone(): "=HYPERLINK(\"https://evil.example\",\"click\")",
            f[1].clone(): "ada@example.com",
            f[2].clone(): "-3",
            f[3].clone(): "Ada, \"the\" first\r\nsecond line _x0041_",
            f[4].clone(): -3,
            f[5].clone(): "https://files.example.com/cv.png",
            f[6].clone(): "1990-05-17",
            f[7].clone(): 9,
            f[8].clone(): "red",
            f[9].clone(): true,
        }))
        .await;
    // 20,000 characters (the most a long text takes) of two UTF-16 units each: past
    // Excel's 32,767.
    let long = "😀".repeat(20_000);
    let second = s
        .create(json!({
            f[0].clone(): "@SUM(A1:A2)", f[2].clone(): "+1", f[3].clone(): long,
            f[4].clone(): 42.5, f[6].clone(): "1899-12-31", f[8].clone(): {"other": "Teal"},
        }))
        .await;
    hosted_submission(&s.app, &s.form_id, json!({f[0].clone(): "Visitor"}), &f[5]).await;

    let bytes = xlsx(&s, &[]).await;
    let book = sheets(&bytes);
    assert_eq!(book.len(), 1);
    let (name, rows) = &book[0];
    assert_eq!(name, "Responses");
    assert_eq!(rows.len(), 4, "a header and three rows");
    // The CSV's header (compared whole below), the labels as typed.
    assert_eq!(rows[0][0], string("Response ID"));
    assert_eq!(rows[0][10], string("Name (2)"));
    assert_eq!(
        rows[0][14..],
        [
            string("Born"),
            string("Recommend?"),
            string("=Colour"),
            string("Agree"),
            string("Language")
        ]
    );

    let row = &rows[1];
    assert_eq!(row[0], string(&first));
    assert!(matches!(row[1], Data::DateTime(_)), "{:?}", row[1]);
    assert_eq!(
        &row[3..7],
        [Data::Empty, Data::Empty, Data::Empty, Data::Empty]
    );
    assert_eq!(row[7], string(r#"{"source": "api"}"#));
    assert_eq!(
        row[8],
        string("=HYPERLINK(\"https://evil.example\",\"click\")"),
        "text as typed, as a string"
    );
    assert_eq!(
        row[10],
        string("-3"),
        "text that looks like a number stays text"
    );
    assert_eq!(
        row[11],
        string("Ada, \"the\" first\r\nsecond line _x0041_"),
        "control characters and Excel's own escapes kept"
    );
    assert_eq!(row[12], Data::Float(-3.0), "a number is a number");
    assert_eq!(row[13], string("https://files.example.com/cv.png"));
    match &row[14] {
        Data::DateTime(born) => {
            assert!(!born.is_duration());
            assert_eq!(born.as_f64(), 33_010.0, "1990-05-17 as Excel's day");
        }
        other => panic!("a date answer is a date: {other:?}"),
    }
    assert_eq!(row[15], Data::Float(9.0));
    assert_eq!(row[16], string("-Red"), "a choice by its label");
    assert_eq!(row[17], string("yes"));
    let row = &rows[2];
    assert_eq!(row[0], string(&second));
    assert_eq!((&row[8], &row[10]), (&string("@SUM(A1:A2)"), &string("+1")));
    match &row[11] {
        Data::String(cut) => {
            assert_eq!(cut.encode_utf16().count(), 32_767, "Excel's limit");
            assert!(cut.ends_with("😀…"));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(row[12], Data::Float(42.5));
    assert_eq!(row[14], string("1899-12-31"), "before Excel's dates: text");
    assert_eq!(row[16], string("Other: Teal"));
    let row = &rows[3];
    assert_eq!(row[4], string("desktop"));
    assert!(matches!(row[3], Data::Float(t) if t >= 0.0), "{row:?}");
    assert_eq!(row[13], string("photo.png"), "an uploaded file by its name");

    // The times are the listing's, to the millisecond (UTC).
    let listed = ndjson(&s.export(&[]).await.text);
    for (row, response) in rows[1..].iter().zip(&listed) {
        for (col, member) in [(1, "submitted_at"), (2, "started_at")] {
            let Data::DateTime(at) = &row[col] else {
                panic!("{member}: {:?}", row[col]);
            };
            assert_eq!(serial_as_rfc3339(at.as_f64()), response[member], "{member}");
        }
    }

    // Every other cell as the CSV has it (where the CSV writes a `'` before a
    // formula, the XLSX has the text as typed, marked as text).
    let mut rows = rows.clone();
    rows[2][11] = Data::Empty;
    let csv = s.export(&[("format", "csv")]).await.text;
    let mut records = csv_records(&csv);
    records[2][11] = String::new();
    let csv = {
        let mut w = csv::Writer::from_writer(Vec::new());
        for r in &records {
            w.write_record(r).expect("csv");
        }
        String::from_utf8(w.into_inner().expect("csv")).expect("utf-8")
    };
    assert_same_as_csv(&rows, &csv);

    // No cell is a formula, and formula-like texts carry Excel's quote prefix (a
    // person editing the cell keeps text); the others do not.
    let sheet = part(&bytes, "xl/worksheets/sheet1.xml");
    assert!(!sheet.contains("<f>") && !sheet.contains("<f "), "{sheet}");
    let styles = part(&bytes, "xl/styles.xml");
    let quoted = |cell: &str| {
        let at = sheet
            .find(&format!("<c r=\"{cell}\""))
            .unwrap_or_else(|| panic!("{cell} in {sheet}"));
        let tag = &sheet[at..at + sheet[at..].find('>').expect("tag end")];
        let style: usize = tag
            .split("s=\"")
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .map_or(0, |n| n.parse().expect("style index"));
        let xfs = &styles[styles.find("<cellXfs").expect("cellXfs")..];
        let xf = xfs.split("<xf ").nth(style + 1).expect("the style");
        xf.contains("quotePrefix=\"1\"")
    };
    for cell in ["I2", "K2", "Q2", "I3", "K3", "Q1"] {
        assert!(quoted(cell), "{cell} has no quote prefix");
    }
    for cell in ["J2", "L2", "Q3", "A2"] {
        assert!(!quoted(cell), "{cell} has a quote prefix");
    }
}

#[tokio::test]
async fn xlsx_export_takes_status_and_the_window_as_the_csv() {
    let s = Setup::new(json!([
        {"type": "short_text", "label": "Name", "required": true},
        {"type": "page_break", "label": "More"},
        {"type": "number", "label": "Count", "required": false},
    ]))
    .await;
    let done = s
        .create(json!({s.fields[0].clone(): "Done", s.fields[2].clone(): 7}))
        .await;
    let form_id = uuid::Uuid::parse_str(&s.form_id).expect("uuid");
    let partial: (uuid::Uuid,) = sqlx::query_as(
        "INSERT INTO partial_responses (id, form_id, resume_digest, answers, page, started_at,
                                        saved_at, updated_at)
         VALUES (gen_random_uuid(), $1, sha256(gen_random_uuid()::text::bytea),
                 jsonb_build_object($2::text, 'Half'), 1, now(), now(), now())
         RETURNING id",
    )
    .bind(form_id)
    .bind(&s.fields[0])
    .fetch_one(&s.app.pool)
    .await
    .expect("a partial response");

    // Completed only, by default: no status columns.
    let book = sheets(&xlsx(&s, &[]).await);
    let rows = &book[0].1;
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0].len(), 11, "{:?}", rows[0]);
    assert_eq!(rows[1][0], string(&done));
    assert_eq!(rows[1][9], Data::Float(7.0));

    // All: the two columns last, the page as a number, as the CSV has them.
    let book = sheets(&xlsx(&s, &[("status", "all")]).await);
    let rows = &book[0].1;
    assert_eq!(
        rows[0][10..],
        [string("Status"), string("Last page"), string("Language")],
        "{:?}",
        rows[0]
    );
    let statuses: Vec<(Data, Data, Data)> = rows[1..]
        .iter()
        .map(|r| (r[0].clone(), r[10].clone(), r[11].clone()))
        .collect();
    assert_eq!(statuses.len(), 2);
    assert!(statuses.contains(&(string(&done), string("completed"), Data::Float(2.0))));
    assert!(statuses.contains(&(
        string(&partial.0.to_string()),
        string("partial"),
        Data::Float(1.0)
    )));
    let csv = s.export(&[("format", "csv"), ("status", "all")]).await.text;
    assert_same_as_csv(rows, &csv);
    let book = sheets(&xlsx(&s, &[("status", "partial")]).await);
    assert_eq!(book[0].1.len(), 2, "the partial alone");
    assert_eq!(book[0].1[1][10], string("partial"));

    // A window that holds nothing: the header alone.
    let book = sheets(&xlsx(&s, &[("since", "2999-01-01T00:00:00Z")]).await);
    assert_eq!(book[0].1.len(), 1);
    assert_eq!(book[0].1[0][0], string("Response ID"));
}

/// A large export: the file is written on the server as the rows are read (constant
/// memory, on disk) and sent once whole; every response is in it once, in the
/// listing's order.
#[tokio::test]
async fn a_large_xlsx_export_holds_every_response_once() {
    let s = Setup::new(contact_fields()).await;
    let rows: usize = 30_000;
    s.seed(rows as i32, 300).await;
    let bytes = xlsx(&s, &[]).await;
    let book = sheets(&bytes);
    assert_eq!(book.len(), 1);
    let sheet = &book[0].1;
    assert_eq!(sheet.len(), rows + 1, "a header and every response");
    let got: Vec<String> = sheet[1..]
        .iter()
        .map(|r| match &r[0] {
            Data::String(id) => id.clone(),
            other => panic!("{other:?}"),
        })
        .collect();
    let listed = ids(&ndjson(&s.export(&[]).await.text));
    assert_eq!(got, listed, "every response once, oldest first");
    assert!(
        sheet[1..]
            .iter()
            .all(|r| matches!(&r[8], Data::String(name) if name.len() == 300)),
        "each answer whole"
    );
}

#[tokio::test]
async fn grpc_xlsx_export_streams_the_same_workbook() {
    let s = Setup::new(contact_fields()).await;
    for n in 0..40 {
        let mut answers = contact_answers(&s.fields, n);
        answers[&s.fields[3]] = json!(format!("{n} {}", "x".repeat(5_000)));
        s.create(answers).await;
    }
    let mut client = ResponsesServiceClient::connect(s.app.grpc_url.clone())
        .await
        .expect("gRPC");
    let request = pb::ExportResponsesRequest {
        form_id: s.form_id.clone(),
        format: pb::ExportFormat::Xlsx.into(),
        ..Default::default()
    };
    let (bytes, _) = grpc_export(&mut client, &s.key, request)
        .await
        .expect("XLSX export");
    // The same cells (the file itself differs in its creation time).
    assert_eq!(sheets(&bytes), sheets(&xlsx(&s, &[]).await));
    assert_eq!(sheets(&bytes)[0].1.len(), 41);
}
