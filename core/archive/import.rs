//! Reading an archive into this instance: its lines, as they arrive, written in one
//! transaction, in the order the export wrote them (a parent before its children). The
//! transaction commits only after the trailer, with as many records as it counts: an
//! id already taken here, a record of another account, a cut archive or one of another
//! schema rolls everything back, and objects written meanwhile are deleted again.

use super::blobs::{self, Folder};
use super::store;
use super::{FORMAT, Header, Kind, Record, Trailer, VERSION};
use crate::audit::{self, Actor, Outcome::Done, Target};
use crate::error::CoreError;
use crate::files::store::FileStore;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use object_store::path::Path as ObjectPath;
use serde_json::Value;
use sqlx::{PgConnection, PgPool};
use tokio_stream::{Stream, StreamExt};
use uuid::Uuid;

/// A webhook as imported, with its new secret.
#[derive(Debug)]
pub(super) struct NewWebhook {
    pub id: Uuid,
    pub form_id: Uuid,
    pub url: String,
    pub secret: String,
}

/// What an import brought in.
#[derive(Debug, Default)]
pub(super) struct Imported {
    pub account_id: Uuid,
    pub account_name: String,
    pub forms: i64,
    pub responses: i64,
    pub partials: i64,
    pub files: i64,
    pub webhooks: Vec<NewWebhook>,
}

fn refused(message: impl std::fmt::Display) -> CoreError {
    CoreError::validation(format!("nothing was imported: {message}"))
}

/// Imports the archive that `chunks` carry; a line longer than `max_line` bytes is
/// refused (the largest file, in base64, fits). The import is an entry of the imported
/// account's audit trail, by `by`, committed with it.
pub(super) async fn import<S>(
    by: &Actor,
    pool: &PgPool,
    files: &FileStore,
    chunks: S,
    max_line: usize,
) -> Result<Imported, CoreError>
where
    S: Stream<Item = Result<Vec<u8>, CoreError>> + Unpin,
{
    let mut tx = pool.begin().await?;
    let mut state = State {
        files,
        written: Vec::new(),
        next_line: 1,
        stage: Stage::Header,
        records: 0,
        imported: Imported::default(),
    };
    let mut outcome = read(&mut tx, &mut state, chunks, max_line).await;
    if outcome.is_ok() {
        let account = state.imported.account_id;
        let (by, target) = (by.on_account(account), Target::account(account));
        outcome = audit::record(&mut tx, &by, "ImportAccount", &target, &[], Done).await;
    }
    let outcome = match outcome {
        Ok(()) => tx.commit().await.map_err(CoreError::from),
        Err(error) => Err(error),
    };
    match outcome {
        Ok(()) => Ok(state.imported),
        Err(error) => {
            // The transaction rolled back (or never committed): its objects go too.
            blobs::forget(files, state.written).await;
            Err(error)
        }
    }
}

/// Where in the archive the reader is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    Header,
    Account,
    Body,
    Done,
}

struct State<'a> {
    files: &'a FileStore,
    /// Objects written so far, deleted if the import does not commit.
    written: Vec<ObjectPath>,
    next_line: u64,
    stage: Stage,
    /// Records read between the header and the trailer.
    records: u64,
    imported: Imported,
}

/// Splits the chunks into lines and imports each.
async fn read<S>(
    conn: &mut PgConnection,
    state: &mut State<'_>,
    mut chunks: S,
    max_line: usize,
) -> Result<(), CoreError>
where
    S: Stream<Item = Result<Vec<u8>, CoreError>> + Unpin,
{
    let mut buf: Vec<u8> = Vec::new();
    // Where the search for the next newline resumes: a long line is scanned once.
    let mut searched = 0;
    while let Some(chunk) = chunks.next().await {
        buf.extend_from_slice(&chunk?);
        let mut start = 0;
        while let Some(at) = buf[searched..].iter().position(|b| *b == b'\n') {
            let end = searched + at;
            line(conn, state, &buf[start..end]).await?;
            start = end + 1;
            searched = start;
        }
        // One move per chunk of what remains, not one per line.
        buf.drain(..start);
        searched = buf.len();
        if buf.len() > max_line {
            return Err(refused(format!(
                "line {} is longer than the largest record ({max_line} bytes)",
                state.next_line
            )));
        }
    }
    if !buf.is_empty() {
        line(conn, state, &buf).await?;
    }
    if state.stage != Stage::Done {
        return Err(refused(
            "the archive is cut short (no trailer): export it again",
        ));
    }
    Ok(())
}

/// Imports one line.
async fn line(
    conn: &mut PgConnection,
    state: &mut State<'_>,
    bytes: &[u8],
) -> Result<(), CoreError> {
    let number = state.next_line;
    state.next_line += 1;
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(());
    }
    let record: Record = serde_json::from_slice(bytes)
        .map_err(|e| refused(format!("line {number} is not an archive record: {e}")))?;
    let expected = match (state.stage, record.kind) {
        (Stage::Header, Kind::Header) | (Stage::Account, Kind::Account) => true,
        (Stage::Body, kind) => !matches!(kind, Kind::Header | Kind::Account),
        _ => false,
    };
    if !expected {
        return Err(refused(format!(
            "line {number}: a {:?} record where {} was expected",
            record.kind,
            match state.stage {
                Stage::Header => "the header",
                Stage::Account => "the account",
                Stage::Body => "a record",
                Stage::Done => "nothing after the trailer",
            }
        )));
    }
    match record.kind {
        Kind::Header => {
            header(conn, &record.row, number).await?;
            state.stage = Stage::Account;
        }
        Kind::End => {
            let trailer: Trailer = decode(&record.row, number)?;
            if trailer.records != state.records {
                return Err(refused(format!(
                    "the trailer counts {} records, the archive holds {}",
                    trailer.records, state.records
                )));
            }
            store::recount(conn, state.imported.account_id).await?;
            state.stage = Stage::Done;
        }
        _ => {
            state.records += 1;
            body(conn, state, record, number).await?;
        }
    }
    Ok(())
}

fn decode<T: serde::de::DeserializeOwned>(row: &Value, line: u64) -> Result<T, CoreError> {
    T::deserialize(row).map_err(|e| refused(format!("line {line}: {e}")))
}

/// Checks the header: our format and version, this instance's schema.
async fn header(conn: &mut PgConnection, row: &Value, line: u64) -> Result<(), CoreError> {
    let header: Header = decode(row, line)?;
    if header.format != FORMAT || header.version != VERSION {
        return Err(refused(format!(
            "this is not an account archive of format version {VERSION} ({} version {})",
            header.format, header.version
        )));
    }
    let here = store::schema(conn).await?;
    if header.schema != here {
        return Err(refused(format!(
            "the archive was written at schema version {}, this instance is at {here}: run the same formsd version on both",
            header.schema
        )));
    }
    Ok(())
}

/// The ids a record names, for the report and the refusals.
fn id_of(row: &Value, key: &str) -> String {
    row.get(key)
        .and_then(Value::as_str)
        .unwrap_or("?")
        .to_owned()
}

/// The bytes a logo or file record carries.
fn content_of(record: &Record, line: u64) -> Result<Vec<u8>, CoreError> {
    let text = record
        .content
        .as_deref()
        .ok_or_else(|| refused(format!("line {line}: the record carries no content")))?;
    STANDARD
        .decode(text)
        .map_err(|e| refused(format!("line {line}: its content is not base64: {e}")))
}

/// Writes one record of the body; a row not written (its id taken, or not the
/// account's) refuses the archive.
async fn body(
    conn: &mut PgConnection,
    state: &mut State<'_>,
    record: Record,
    line: u64,
) -> Result<(), CoreError> {
    let account = state.imported.account_id;
    let row = &record.row;
    let id = id_of(row, "id");
    let (written, taken) = match record.kind {
        Kind::Account => {
            let account_id = Uuid::parse_str(&id)
                .map_err(|_| refused(format!("line {line}: the account has no id")))?;
            state.imported.account_id = account_id;
            state.imported.account_name = id_of(row, "name");
            state.stage = Stage::Body;
            let message = format!(
                "an account with id {id} or name {:?} already exists on this instance",
                state.imported.account_name
            );
            (store::put_account(conn, row).await?, message)
        }
        Kind::Quota => (
            store::put_quota(conn, account, row).await?,
            format!(
                "line {line}: the response count of month {} is there twice",
                id_of(row, "month")
            ),
        ),
        Kind::Form => {
            state.imported.forms += 1;
            (
                store::put_form(conn, account, row).await?,
                format!(
                    "form {id} (or its short id {}) already exists on this instance",
                    id_of(row, "short_id")
                ),
            )
        }
        Kind::Logo => {
            let form = id_of(row, "form_id");
            let bytes = content_of(&record, line)?;
            let (content, key) =
                blobs::write(state.files, Folder::Logos, bytes, &mut state.written).await?;
            (
                store::put_logo(conn, account, row, content, key).await?,
                format!(
                    "the logo of form {form} is there twice, or its form is not in the archive"
                ),
            )
        }
        Kind::Webhook => {
            let secret = crate::webhooks::signing::new_secret();
            let done = store::put_webhook(conn, account, row, &secret).await?;
            if done {
                state.imported.webhooks.push(NewWebhook {
                    id: Uuid::parse_str(&id).unwrap_or_default(),
                    form_id: Uuid::parse_str(&id_of(row, "form_id")).unwrap_or_default(),
                    url: id_of(row, "url"),
                    secret,
                });
            }
            (
                done,
                format!(
                    "webhook {id} already exists on this instance, or its form is not in the archive"
                ),
            )
        }
        Kind::Response => {
            state.imported.responses += 1;
            (
                store::put_response(conn, account, row).await?,
                format!(
                    "response {id} already exists on this instance, or its form is not in the archive"
                ),
            )
        }
        Kind::Partial => {
            state.imported.partials += 1;
            (
                store::put_partial(conn, account, row).await?,
                format!(
                    "partial response {id} already exists on this instance, or its form is not in the archive"
                ),
            )
        }
        Kind::File => {
            state.imported.files += 1;
            let bytes = content_of(&record, line)?;
            let (content, key) =
                blobs::write(state.files, Folder::Files, bytes, &mut state.written).await?;
            (
                store::put_file(conn, account, row, content, key).await?,
                format!(
                    "file {id} already exists on this instance, or its response is not in the archive"
                ),
            )
        }
        Kind::Header | Kind::End => (true, String::new()),
    };
    if written { Ok(()) } else { Err(refused(taken)) }
}
