//! Writing an account's archive: its rows read from one snapshot in keyset pages (a
//! page of forms, then each form's logo, webhooks and pages of responses and partial
//! responses, each page followed by its files, one file's bytes at a time), encoded as
//! lines and sent in chunks. Memory holds a page of rows and one file, whatever the
//! account's size; a reader that takes nothing for the stall timeout stops the export.

use super::blobs;
use super::store::{self, PAGE};
use super::{FORMAT, Header, Kind, Record, Trailer, VERSION};
use crate::error::CoreError;
use crate::files::store::FileStore;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::Value;
use sqlx::PgConnection;
use std::time::Duration;
use tokio::sync::mpsc;
use uuid::Uuid;

/// Bytes gathered before they are sent, and the largest piece a message carries.
const CHUNK_BYTES: usize = 1024 * 1024;

/// The lines of the archive, sent to its reader in chunks.
pub(super) struct Writer {
    out: mpsc::Sender<Result<Vec<u8>, CoreError>>,
    buf: Vec<u8>,
    /// Records written, the header aside: what the trailer counts.
    records: u64,
    stall: Duration,
}

impl Writer {
    pub(super) fn new(out: mpsc::Sender<Result<Vec<u8>, CoreError>>, stall: Duration) -> Self {
        Self {
            out,
            buf: Vec::with_capacity(CHUNK_BYTES * 2),
            records: 0,
            stall,
        }
    }

    async fn record(&mut self, record: &Record) -> Result<(), CoreError> {
        serde_json::to_writer(&mut self.buf, record)
            .map_err(|e| CoreError::Internal(format!("encoding the archive: {e}")))?;
        self.buf.push(b'\n');
        if !matches!(record.kind, Kind::Header | Kind::End) {
            self.records += 1;
        }
        if self.buf.len() >= CHUNK_BYTES {
            self.flush().await?;
        }
        Ok(())
    }

    async fn row(&mut self, kind: Kind, row: Value) -> Result<(), CoreError> {
        self.record(&Record::new(kind, row)).await
    }

    async fn with_bytes(&mut self, kind: Kind, row: Value, bytes: &[u8]) -> Result<(), CoreError> {
        let record = Record {
            kind,
            row,
            content: Some(STANDARD.encode(bytes)),
        };
        self.record(&record).await
    }

    /// Sends what is gathered, in pieces a message carries.
    pub(super) async fn flush(&mut self) -> Result<(), CoreError> {
        let buf = std::mem::take(&mut self.buf);
        for piece in buf.chunks(CHUNK_BYTES) {
            match tokio::time::timeout(self.stall, self.out.send(Ok(piece.to_vec()))).await {
                Ok(Ok(())) => {}
                Ok(Err(_)) => return Err(CoreError::Internal("the archive's reader left".into())),
                Err(_) => return Err(CoreError::ReaderStalled(self.stall.as_secs())),
            }
        }
        Ok(())
    }
}

/// Writes the archive of `account`, read in `conn`'s snapshot.
pub(super) async fn write(
    conn: &mut PgConnection,
    files: &FileStore,
    account: Uuid,
    w: &mut Writer,
) -> Result<(), CoreError> {
    let header = Header {
        format: FORMAT.to_owned(),
        version: VERSION,
        schema: store::schema(conn).await?,
        account_id: account,
        exported_at: chrono::Utc::now(),
    };
    w.row(Kind::Header, to_value(&header)?).await?;
    w.row(Kind::Account, store::account(conn, account).await?)
        .await?;
    for quota in store::quotas(conn, account).await? {
        w.row(Kind::Quota, quota).await?;
    }
    let mut after = Uuid::nil();
    loop {
        let page = store::forms(conn, account, after).await?;
        let full = page.len() as i64 == PAGE;
        for (id, row) in page {
            after = id;
            w.row(Kind::Form, row).await?;
            form(conn, files, id, w).await?;
        }
        if !full {
            break;
        }
    }
    let trailer = Trailer { records: w.records };
    w.row(Kind::End, to_value(&trailer)?).await?;
    w.flush().await
}

fn to_value<T: serde::Serialize>(value: &T) -> Result<Value, CoreError> {
    serde_json::to_value(value).map_err(|e| CoreError::Internal(format!("encoding: {e}")))
}

/// What belongs to one form, after its own record.
async fn form(
    conn: &mut PgConnection,
    files: &FileStore,
    form: Uuid,
    w: &mut Writer,
) -> Result<(), CoreError> {
    if let Some((row, content, key)) = store::logo(conn, form).await? {
        let bytes = blobs::read(files, content, key).await?;
        w.with_bytes(Kind::Logo, row, &bytes).await?;
    }
    for hook in store::webhooks(conn, form).await? {
        w.row(Kind::Webhook, hook).await?;
    }
    let mut after = (store::dawn(), Uuid::nil());
    loop {
        let page = store::responses(conn, form, after).await?;
        let full = page.len() as i64 == PAGE;
        let mut ids = Vec::with_capacity(page.len());
        for (at, id, row) in page {
            after = (at, id);
            ids.push(id);
            w.row(Kind::Response, row).await?;
        }
        files_of(conn, files, &ids, &[], w).await?;
        if !full {
            break;
        }
    }
    let mut after = (store::dawn(), Uuid::nil());
    loop {
        let page = store::partials(conn, form, after).await?;
        let full = page.len() as i64 == PAGE;
        let mut staged = Vec::new();
        for (at, id, file_ids, row) in page {
            after = (at, id);
            staged.extend(file_ids);
            w.row(Kind::Partial, row).await?;
        }
        files_of(conn, files, &[], &staged, w).await?;
        if !full {
            break;
        }
    }
    Ok(())
}

/// The files of `responses` and the still staged ones among `staged`, with their bytes.
async fn files_of(
    conn: &mut PgConnection,
    files: &FileStore,
    responses: &[Uuid],
    staged: &[Uuid],
    w: &mut Writer,
) -> Result<(), CoreError> {
    if responses.is_empty() && staged.is_empty() {
        return Ok(());
    }
    for (id, row) in store::files(conn, responses, staged).await? {
        let (content, key) = store::file_content(conn, id).await?;
        let bytes = blobs::read(files, content, key).await?;
        w.with_bytes(Kind::File, row, &bytes).await?;
    }
    Ok(())
}
