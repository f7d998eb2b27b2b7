//! Export files of a form's responses (NDJSON, CSV, XLSX), and the pump that writes one
//! from a stream of rows into a bounded channel, a chunk at a time.
//!
//! Memory stays constant whatever the number of responses: rows are encoded as they
//! arrive, and a chunk is handed on once it holds `CHUNK_BYTES`; the channel's depth
//! bounds how many chunks wait for a slow reader (who then slows the database read).
//! An XLSX is a zip that can only be finished once every row is in: its rows go to
//! temporary files, and the file is sent from disk once written (`xlsx`).

mod cells;
mod xlsx;

pub(crate) use cells::{Cell, text_cell};
use cells::{cells, header_row};

use crate::error::CoreError;
use crate::forms::{Field, FieldKind};
use crate::pb::convert::rfc3339;
use chrono::{DateTime, NaiveDate, Utc};
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::collections::HashSet;
use std::io::Write;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio_stream::{Stream, StreamExt};
use uuid::Uuid;

/// A chunk is handed on once it holds this many bytes.
pub(crate) const CHUNK_BYTES: usize = 64 * 1024;
/// Largest piece of the file in one message: a single huge response is split, so that
/// every gRPC client can read the messages with its default 4 MiB limit.
pub(crate) const MAX_PIECE_BYTES: usize = 1024 * 1024;
/// Chunks waiting for the reader, at most (the channel holds one item more: the
/// outcome, see [`pump`]).
pub(crate) const CHANNEL_DEPTH: usize = 4;

/// File format of an export.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    Ndjson,
    Csv,
    Xlsx,
}

/// A response as the export reads it. Answers and metadata are the JSON text the
/// database returns: NDJSON copies it as is, without decoding and re-encoding each row.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct ExportRow {
    pub id: Uuid,
    pub form_id: Uuid,
    pub answers: String,
    pub metadata: String,
    pub device_type: Option<String>,
    pub browser: Option<String>,
    pub os: Option<String>,
    pub started_at: DateTime<Utc>,
    pub submitted_at: DateTime<Utc>,
    pub completion_time_seconds: Option<i64>,
    /// A partial response's page (`None`: a completed response).
    pub page: Option<i32>,
    pub language: Option<String>,
}

/// The columns of a CSV export before the form's fields.
pub(crate) const CSV_LEADING_COLUMNS: [&str; 8] = [
    "Response ID",
    "Submitted at",
    "Started at",
    "Completion time (seconds)",
    "Device type",
    "Browser",
    "OS",
    "Metadata",
];

/// The last column of a CSV or XLSX export: the language the response was answered in.
/// Last, so that the columns people and scripts already read keep their places.
pub(crate) const LANGUAGE_COLUMN: &str = "Language";

/// Writes one export file, row by row, into an internal buffer taken with `take`.
pub(crate) struct Encoder {
    kind: Kind,
    /// The form's fields when it has pages: a completed response's last page is read
    /// from them and its answers.
    paged: Option<Vec<Field>>,
    /// Whether a CSV or XLSX row ends with the "Status" and "Last page" columns (an
    /// export that asked for partial responses); NDJSON lines always carry them, as
    /// list items do.
    statuses: bool,
}

enum Kind {
    Ndjson(Vec<u8>),
    Csv {
        // Boxed: the writer keeps its state inline (hundreds of bytes), the other variant 24.
        writer: Box<csv::Writer<Vec<u8>>>,
        /// The field ids, in column order.
        fields: Vec<(String, Field)>,
    },
    Xlsx {
        sheet: Box<xlsx::Sheet>,
        /// The field ids, in column order.
        fields: Vec<(String, Field)>,
    },
}

/// RFC 4180: CRLF ends a record; fields are quoted when they hold a quote, comma, CR or LF.
fn csv_writer() -> Box<csv::Writer<Vec<u8>>> {
    Box::new(
        csv::WriterBuilder::new()
            .terminator(csv::Terminator::CRLF)
            .from_writer(Vec::with_capacity(CHUNK_BYTES * 2)),
    )
}

fn internal(error: impl std::fmt::Display) -> CoreError {
    CoreError::Internal(format!("writing an export: {error}"))
}

impl Encoder {
    /// An encoder for a form with `fields`; a CSV or XLSX starts with its header row.
    pub(crate) fn new(format: Format, fields: &[Field]) -> Result<Self, CoreError> {
        Self::build(format, fields, false)
    }

    /// This encoder, for an export that holds partial responses too (`fields`: all the
    /// form's, page breaks included): a CSV or XLSX gets the "Status" and "Last page"
    /// columns last.
    pub(crate) fn with_statuses(format: Format, fields: &[Field]) -> Result<Self, CoreError> {
        Self::build(format, fields, true)
    }

    fn build(format: Format, fields: &[Field], statuses: bool) -> Result<Self, CoreError> {
        // A page break takes no answer: it is no column.
        let all = fields;
        let fields: Vec<Field> = fields
            .iter()
            .filter(|f| f.kind != FieldKind::PageBreak)
            .cloned()
            .collect();
        let fields = &fields[..];
        let kind = match format {
            Format::Ndjson => Kind::Ndjson(Vec::with_capacity(CHUNK_BYTES * 2)),
            Format::Csv => {
                let mut writer = csv_writer();
                let header = header_row(fields, statuses)
                    .into_iter()
                    .map(|label| text_cell(&label).into_owned());
                writer.write_record(header).map_err(internal)?;
                Kind::Csv {
                    writer,
                    fields: columns(fields),
                }
            }
            Format::Xlsx => Kind::Xlsx {
                sheet: Box::new(xlsx::Sheet::new(header_row(fields, statuses))?),
                fields: columns(fields),
            },
        };
        Ok(Self {
            kind,
            paged: all
                .iter()
                .any(|f| f.kind == FieldKind::PageBreak)
                .then(|| all.to_vec()),
            statuses,
        })
    }

    /// The status and last page of `r`.
    fn status_of(&self, r: &ExportRow) -> Result<(&'static str, i64), CoreError> {
        if let Some(page) = r.page {
            return Ok(("partial", i64::from(page)));
        }
        let page = match &self.paged {
            Some(fields) => {
                let answers: Map<String, Value> =
                    serde_json::from_str(&r.answers).map_err(internal)?;
                crate::forms::logic::last_page(fields, &answers) as i64
            }
            None => 1,
        };
        Ok(("completed", page))
    }

    /// Appends one response.
    pub(crate) fn row(&mut self, r: &ExportRow) -> Result<(), CoreError> {
        let status = self.status_of(r)?;
        let trailing = self.statuses.then_some(status);
        match &mut self.kind {
            Kind::Ndjson(buf) => ndjson_line(buf, r, status),
            Kind::Csv { writer, fields } => {
                let answers: Map<String, Value> =
                    serde_json::from_str(&r.answers).map_err(internal)?;
                for cell in cells(r, fields, &answers, trailing) {
                    writer
                        .write_field(cell.csv().as_bytes())
                        .map_err(internal)?;
                }
                writer.write_record(None::<&[u8]>).map_err(internal)?;
                // Into the Vec (no I/O), so that `pending` sees the row.
                writer.flush().map_err(internal)
            }
            Kind::Xlsx { sheet, fields } => {
                let answers: Map<String, Value> =
                    serde_json::from_str(&r.answers).map_err(internal)?;
                sheet.row(&cells(r, fields, &answers, trailing))
            }
        }
    }

    /// Bytes written and not yet taken (an XLSX has none before its end).
    pub(crate) fn pending(&self) -> usize {
        match &self.kind {
            Kind::Ndjson(buf) => buf.len(),
            Kind::Csv { writer, .. } => writer.get_ref().len(),
            Kind::Xlsx { .. } => 0,
        }
    }

    /// The bytes written since the last call.
    pub(crate) fn take(&mut self) -> Result<Vec<u8>, CoreError> {
        match &mut self.kind {
            Kind::Ndjson(buf) => Ok(std::mem::replace(buf, Vec::with_capacity(CHUNK_BYTES * 2))),
            // The writer lends no access to its Vec: a fresh writer takes its place (the
            // header row is written once, by `new`).
            Kind::Csv { writer, .. } => std::mem::replace(writer, csv_writer())
                .into_inner()
                .map_err(internal),
            Kind::Xlsx { .. } => Ok(Vec::new()),
        }
    }

    /// The rest of the file once every row is in: the bytes not yet taken, or the
    /// finished XLSX (written on a blocking thread: zipping the sheet is long work).
    async fn finish(mut self) -> Result<Rest, CoreError> {
        match self.kind {
            Kind::Xlsx { sheet, .. } => {
                let file = tokio::task::spawn_blocking(move || sheet.finish())
                    .await
                    .map_err(internal)??;
                Ok(Rest::File(tokio::fs::File::from_std(file)))
            }
            _ => Ok(Rest::Bytes(self.take()?)),
        }
    }
}

/// What is left to send of a file once every row is in.
enum Rest {
    Bytes(Vec<u8>),
    /// A file on disk, at its start.
    File(tokio::fs::File),
}

/// The field ids of `fields`, in column order, with the fields.
fn columns(fields: &[Field]) -> Vec<(String, Field)> {
    fields
        .iter()
        .map(|f| (f.id.to_string(), f.clone()))
        .collect()
}

/// One NDJSON line: the members and JSON names of a response in the REST listing.
fn ndjson_line(
    buf: &mut Vec<u8>,
    r: &ExportRow,
    (status, page): (&str, i64),
) -> Result<(), CoreError> {
    // The stored JSON text is one line: PostgreSQL writes jsonb without newlines (a
    // newline inside a string is escaped).
    write!(
        buf,
        r#"{{"id":"{}","form_id":"{}","answers":{},"metadata":{},"device_type":"#,
        r.id, r.form_id, r.answers, r.metadata
    )
    .map_err(internal)?;
    serde_json::to_writer(&mut *buf, &r.device_type).map_err(internal)?;
    buf.extend_from_slice(br#","browser":"#);
    serde_json::to_writer(&mut *buf, &r.browser).map_err(internal)?;
    buf.extend_from_slice(br#","os":"#);
    serde_json::to_writer(&mut *buf, &r.os).map_err(internal)?;
    write!(
        buf,
        r#","started_at":"{}","submitted_at":"{}","completion_time_seconds":"#,
        rfc3339(r.started_at),
        rfc3339(r.submitted_at)
    )
    .map_err(internal)?;
    serde_json::to_writer(&mut *buf, &r.completion_time_seconds).map_err(internal)?;
    write!(buf, r#","status":"{status}","last_page":{page}"#).map_err(internal)?;
    // As the listing: present only when one was recorded.
    if let Some(language) = &r.language {
        buf.extend_from_slice(br#","language":"#);
        serde_json::to_writer(&mut *buf, language).map_err(internal)?;
    }
    buf.extend_from_slice(b"}\n");
    Ok(())
}

/// Encodes `rows` and sends the file in chunks until the rows end, one fails, the
/// reader goes away (then the rest is not read), or the reader takes nothing for
/// `stall` (then the export gives up, and its caller frees the connection). A failure is
/// sent as the last item, so that the reader sees an error rather than a short file
/// that looks complete: a place in the channel is kept for it from the start, so it
/// gets there even when a stalled reader left the channel full.
///
/// `out` needs room for [`CHANNEL_DEPTH`] chunks and that last item.
pub(crate) async fn pump<S>(
    mut rows: S,
    mut encoder: Encoder,
    out: mpsc::Sender<Result<Vec<u8>, CoreError>>,
    stall: Duration,
) where
    S: Stream<Item = Result<ExportRow, CoreError>> + Unpin,
{
    let Ok(last) = out.clone().reserve_owned().await else {
        return; // the reader is gone already
    };
    let outcome = async {
        while let Some(row) = rows.next().await {
            encoder.row(&row?)?;
            if encoder.pending() >= CHUNK_BYTES && !send(&out, encoder.take()?, stall).await? {
                return Ok(());
            }
        }
        match encoder.finish().await? {
            Rest::Bytes(bytes) => {
                send(&out, bytes, stall).await?;
            }
            Rest::File(mut file) => {
                use tokio::io::AsyncReadExt;
                loop {
                    let mut chunk = Vec::with_capacity(CHUNK_BYTES);
                    let read = (&mut file)
                        .take(CHUNK_BYTES as u64)
                        .read_to_end(&mut chunk)
                        .await
                        .map_err(internal)?;
                    if read == 0 || !send(&out, chunk, stall).await? {
                        break;
                    }
                }
            }
        }
        Ok(())
    }
    .await;
    if let Err(error) = outcome {
        if let CoreError::ReaderStalled(secs) = &error {
            tracing::info!(
                stalled_secs = secs,
                "export stopped: its reader took nothing"
            );
        }
        last.send(Err(error));
    }
}

/// Sends `bytes` in pieces of at most `MAX_PIECE_BYTES`; false when the reader is gone.
async fn send(
    out: &mpsc::Sender<Result<Vec<u8>, CoreError>>,
    bytes: Vec<u8>,
    stall: Duration,
) -> Result<bool, CoreError> {
    if bytes.len() <= MAX_PIECE_BYTES {
        return match bytes.is_empty() {
            true => Ok(true),
            false => send_piece(out, bytes, stall).await,
        };
    }
    for piece in bytes.chunks(MAX_PIECE_BYTES) {
        if !send_piece(out, piece.to_vec(), stall).await? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Sends one piece; false when the reader is gone, `ReaderStalled` when the piece found
/// no room for `stall` (the reader took nothing for that long).
async fn send_piece(
    out: &mpsc::Sender<Result<Vec<u8>, CoreError>>,
    piece: Vec<u8>,
    stall: Duration,
) -> Result<bool, CoreError> {
    match tokio::time::timeout(stall, out.send(Ok(piece))).await {
        Ok(sent) => Ok(sent.is_ok()),
        Err(_) => Err(CoreError::ReaderStalled(stall.as_secs())),
    }
}

#[cfg(test)]
mod tests;
