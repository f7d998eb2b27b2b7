//! `formsd accounts export` and `formsd accounts import`: an account's archive moved
//! between instances through the AccountArchiveService. The core reads and writes the
//! archive; this only moves its bytes between the service and a file, in chunks.

use super::{Admin, refused};
use crate::app::Error;
use forms::pb;
use forms::pb::account_archive_service_client::AccountArchiveServiceClient;
use serde_json::json;
use std::path::{Path, PathBuf};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_stream::wrappers::ReceiverStream;

/// Bytes per chunk sent to the core.
const CHUNK_BYTES: usize = 1024 * 1024;

/// Writes the account's archive to `out`: first under a temporary name beside it,
/// renamed once the whole archive is there, so that a failed export leaves no file
/// that looks whole.
pub(crate) async fn export(admin: &Admin, account: String, out: &Path) -> Result<(), Error> {
    let mut client = AccountArchiveServiceClient::new(admin.transport());
    let request = admin.request(pb::ExportAccountRequest { account })?;
    let mut chunks = client
        .export_account(request)
        .await
        .map_err(refused)?
        .into_inner();
    let partial = partial_name(out);
    let mut file = tokio::fs::File::create(&partial).await?;
    let mut bytes = 0u64;
    let outcome = async {
        while let Some(message) = chunks.message().await.map_err(refused)? {
            file.write_all(&message.chunk).await?;
            bytes += message.chunk.len() as u64;
        }
        file.sync_all().await?;
        Ok::<_, Error>(())
    }
    .await;
    if let Err(error) = outcome {
        let _ = tokio::fs::remove_file(&partial).await;
        return Err(error);
    }
    tokio::fs::rename(&partial, out).await?;
    eprintln!(
        "wrote the account's archive to {} ({bytes} bytes)",
        out.display()
    );
    Ok(())
}

fn partial_name(out: &Path) -> PathBuf {
    let mut name = out.as_os_str().to_owned();
    name.push(".partial");
    PathBuf::from(name)
}

/// Imports the archive in `path`; prints what came in (the webhooks' new secrets
/// included, shown only now) as one JSON object, and what the operator does next.
pub(crate) async fn import(admin: &Admin, path: &Path) -> Result<(), Error> {
    let mut file = tokio::fs::File::open(path).await?;
    let (sender, receiver) = tokio::sync::mpsc::channel(4);
    // The file is read as the core takes it: never all of it in memory.
    let reading = tokio::spawn(async move {
        loop {
            let mut chunk = Vec::with_capacity(CHUNK_BYTES);
            let read = (&mut file)
                .take(CHUNK_BYTES as u64)
                .read_to_end(&mut chunk)
                .await?;
            if read == 0
                || sender
                    .send(pb::ImportAccountRequest { chunk })
                    .await
                    .is_err()
            {
                return Ok::<_, std::io::Error>(());
            }
        }
    });
    let mut client = AccountArchiveServiceClient::new(admin.transport());
    let request = admin.request(ReceiverStream::new(receiver))?;
    let outcome = client.import_account(request).await;
    reading.await.map_err(|e| e.to_string())??;
    let imported = outcome.map_err(refused)?.into_inner();
    let webhooks: Vec<_> = imported
        .webhooks
        .iter()
        .map(|w| json!({"id": w.id, "form_id": w.form_id, "url": w.url, "secret": w.secret}))
        .collect();
    println!(
        "{}",
        json!({
            "account_id": imported.account_id,
            "account_name": imported.account_name,
            "forms": imported.forms,
            "responses": imported.responses,
            "partial_responses": imported.partial_responses,
            "files": imported.files,
            "webhooks": webhooks,
        })
    );
    let name = &imported.account_name;
    if !imported.webhooks.is_empty() {
        eprintln!(
            "each webhook has a new signing secret, shown above only: give it to the owner for their receiver"
        );
    }
    eprintln!(
        "API keys, sessions and members were not moved: make a key (formsd keys create --account {name:?} ...) or a sign-in link (formsd accounts sign-in-link {name:?})"
    );
    Ok(())
}
