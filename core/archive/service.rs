//! The gRPC adapter of account archives: AccountArchiveService, behind the operator
//! token. The export runs in a task of its own holding one read-only snapshot until
//! the last chunk is taken (or its reader goes or stalls); the import reads the chunks
//! as the client sends them.

use super::export::{self, Writer};
use super::import::{self, Imported};
use super::store;
use crate::audit::{self, Actor, Outcome::Done, Target};
use crate::config::CoreConfig;
use crate::error::CoreError;
use crate::files::store::FileStore;
use crate::pb::{self, account_archive_service_server::AccountArchiveService};
use crate::rpc::{AdminAuth, reply};
use sqlx::PgPool;
use std::pin::Pin;
use std::sync::Arc;
use tokio_stream::{Stream, StreamExt, wrappers::ReceiverStream};
use tonic::{Request, Response, Status, Streaming};
use uuid::Uuid;

/// The export's snapshot: every page sees the account as it was at its start.
const SNAPSHOT: &str = "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY";

/// Chunks the export may have ready before its reader takes them.
const CHANNEL_DEPTH: usize = 4;

/// The AccountArchiveService of the core.
#[derive(Clone)]
pub(crate) struct Archives {
    pub(crate) pool: PgPool,
    pub(crate) auth: AdminAuth,
    pub(crate) files: FileStore,
    pub(crate) config: Arc<CoreConfig>,
}

type ExportStream =
    Pin<Box<dyn Stream<Item = Result<pb::ExportAccountResponse, Status>> + Send + 'static>>;

/// The longest line an import takes: the largest file a field may take, in base64,
/// with room for its row.
const MAX_LINE: usize = crate::server::MAX_FILE_MESSAGE / 3 * 4 + 1024 * 1024;

impl Archives {
    async fn export(&self, by: &Actor, account: &str) -> Result<ExportStream, CoreError> {
        let mut tx = self.pool.begin_with(SNAPSHOT).await?;
        let account = store::account_id(&mut tx, account).await?;
        // Begun is what the trail records: the snapshot is read only, and the archive
        // is complete only when its reader has taken the trailer.
        let (by, target) = (by.on_account(account), Target::account(account));
        audit::record_alone(&self.pool, &by, "ExportAccount", &target, &[], Done).await?;
        // One place for the last item is kept from the start, so that a failure reaches
        // the reader (rather than a short archive that looks whole) even when a stalled
        // reader left the channel full.
        let (sender, receiver) = tokio::sync::mpsc::channel(CHANNEL_DEPTH + 1);
        let stall = self.config.exports.stall_timeout;
        let files = self.files.clone();
        tokio::spawn(async move {
            let Ok(last) = sender.clone().reserve_owned().await else {
                return;
            };
            let mut writer = Writer::new(sender, stall);
            if let Err(error) = export::write(&mut tx, &files, account, &mut writer).await {
                tracing::warn!(%account, %error, "account export stopped");
                last.send(Err(error));
            }
            // Read only: dropping the transaction rolls it back and frees the connection.
            drop(tx);
        });
        let request_id = Uuid::new_v4().to_string();
        Ok(Box::pin(ReceiverStream::new(receiver).map(move |item| {
            item.map(|chunk| pb::ExportAccountResponse { chunk })
                .map_err(|error| error.into_status(&request_id))
        })))
    }
}

fn imported_to_pb(imported: Imported) -> pb::ImportAccountResponse {
    pb::ImportAccountResponse {
        account_id: imported.account_id.to_string(),
        account_name: imported.account_name,
        forms: imported.forms,
        responses: imported.responses,
        partial_responses: imported.partials,
        files: imported.files,
        webhooks: imported
            .webhooks
            .into_iter()
            .map(|w| pb::ImportedWebhook {
                id: w.id.to_string(),
                form_id: w.form_id.to_string(),
                url: w.url,
                secret: w.secret,
            })
            .collect(),
    }
}

#[tonic::async_trait]
impl AccountArchiveService for Archives {
    type ExportAccountStream = ExportStream;

    async fn export_account(
        &self,
        req: Request<pb::ExportAccountRequest>,
    ) -> Result<Response<ExportStream>, Status> {
        self.auth.check(&req)?;
        let by = self.auth.actor(&req);
        reply(self.export(&by, &req.into_inner().account).await)
    }

    async fn import_account(
        &self,
        req: Request<Streaming<pb::ImportAccountRequest>>,
    ) -> Result<Response<pb::ImportAccountResponse>, Status> {
        self.auth.check(&req)?;
        let by = self.auth.actor(&req);
        let chunks = req.into_inner().map(|item| {
            item.map(|m| m.chunk).map_err(|status| {
                CoreError::validation(format!(
                    "nothing was imported: reading the archive failed: {}",
                    status.message()
                ))
            })
        });
        let imported = import::import(&by, &self.pool, &self.files, chunks, MAX_LINE).await;
        if let Ok(done) = &imported {
            tracing::info!(account = %done.account_id, forms = done.forms,
                responses = done.responses, "account imported");
        }
        reply(imported.map(imported_to_pb))
    }
}
