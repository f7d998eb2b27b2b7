//! The bytes of logos and files, where each instance keeps them (`files::store`): read
//! from the row or the object store on export, written to this instance's place on
//! import. An object written by an import that then fails is deleted again.

use crate::error::CoreError;
use crate::files::store::FileStore;
use object_store::{PutPayload, path::Path as ObjectPath};
use uuid::Uuid;

fn storage_error(e: impl std::fmt::Display) -> CoreError {
    CoreError::Internal(format!("file storage: {e}"))
}

/// The folders of the object store, as `files::store` and `forms::logo` name them.
#[derive(Debug, Clone, Copy)]
pub(super) enum Folder {
    Files,
    Logos,
}

impl Folder {
    fn name(self) -> &'static str {
        match self {
            Self::Files => "files",
            Self::Logos => "logos",
        }
    }
}

/// The bytes of a row that holds them (`content`) or names their object.
pub(super) async fn read(
    files: &FileStore,
    content: Option<Vec<u8>>,
    object_key: Option<String>,
) -> Result<Vec<u8>, CoreError> {
    match (content, object_key, files) {
        (Some(bytes), _, _) => Ok(bytes),
        (None, Some(key), FileStore::Objects { store, .. }) => Ok(store
            .get(&ObjectPath::from(key))
            .await
            .map_err(storage_error)?
            .bytes()
            .await
            .map_err(storage_error)?
            .to_vec()),
        (None, _, _) => Err(storage_error(
            "a file is in an object store that is not configured (set FORMS_FILE_STORE_URL as the instance does)",
        )),
    }
}

/// Stores `bytes` as this instance keeps them: `(content, object_key)` for the row.
/// An object goes under a new name, never the row's id: an import refused because
/// that id is taken here must not overwrite (and then delete) the object of the row
/// that has it. An object written is added to `written`, to delete if the import fails.
pub(super) async fn write(
    files: &FileStore,
    folder: Folder,
    bytes: Vec<u8>,
    written: &mut Vec<ObjectPath>,
) -> Result<(Option<Vec<u8>>, Option<String>), CoreError> {
    match files {
        FileStore::Database => Ok((Some(bytes), None)),
        FileStore::Objects { store, prefix } => {
            let key = prefix
                .child(folder.name())
                .child(Uuid::now_v7().to_string());
            store
                .put(&key, PutPayload::from(bytes))
                .await
                .map_err(storage_error)?;
            written.push(key.clone());
            Ok((None, Some(key.to_string())))
        }
    }
}

/// Deletes the objects of an import that did not commit; failures are logged (an
/// unreferenced object is harmless).
pub(super) async fn forget(files: &FileStore, written: Vec<ObjectPath>) {
    if let FileStore::Objects { store, .. } = files {
        for key in written {
            if let Err(error) = store.delete(&key).await {
                tracing::warn!(%key, %error, "deleting an object of a failed import");
            }
        }
    }
}
