//! Where files live: in PostgreSQL by default (in the row, in the response's
//! transaction), or in an object store named by URL (`file:///dir`, `s3://bucket/prefix`
//! with the usual AWS_* environment) for scale-out.
//!
//! With an object store, an object is written before its row commits and deleted after
//! its row's delete commits: a crash in between can leave an unreferenced object, never
//! a row without its object.

use super::CheckedFile;
use crate::error::CoreError;
use object_store::{ObjectStore, PutPayload, path::Path as ObjectPath};
use sqlx::{PgPool, Postgres, Transaction};
use std::sync::Arc;
use uuid::Uuid;

/// The file storage of the service.
#[derive(Clone)]
pub enum FileStore {
    /// In PostgreSQL, with the response.
    Database,
    /// In an object store, under `prefix`.
    Objects {
        store: Arc<dyn ObjectStore>,
        prefix: ObjectPath,
    },
}

fn storage_error(e: impl std::fmt::Display) -> CoreError {
    CoreError::Internal(format!("file storage: {e}"))
}

impl FileStore {
    /// The store named by `url`, or the database when there is none.
    pub fn from_url(url: Option<&str>) -> Result<Self, CoreError> {
        let Some(url) = url.filter(|u| !u.trim().is_empty()) else {
            return Ok(Self::Database);
        };
        let parsed = url::Url::parse(url).map_err(storage_error)?;
        let store: Arc<dyn ObjectStore> = match parsed.scheme() {
            "file" => {
                let dir = parsed
                    .to_file_path()
                    .map_err(|()| storage_error("file URL without a path"))?;
                std::fs::create_dir_all(&dir).map_err(storage_error)?;
                Arc::new(
                    object_store::local::LocalFileSystem::new_with_prefix(dir)
                        .map_err(storage_error)?,
                )
            }
            "s3" => Arc::new(
                object_store::aws::AmazonS3Builder::from_env()
                    .with_url(url)
                    .build()
                    .map_err(storage_error)?,
            ),
            other => {
                return Err(storage_error(format!(
                    "unsupported scheme {other}; use file:// or s3://"
                )));
            }
        };
        let prefix = match parsed.scheme() {
            "s3" => ObjectPath::from(parsed.path().trim_matches('/')),
            _ => ObjectPath::default(),
        };
        Ok(Self::Objects { store, prefix })
    }

    fn key(prefix: &ObjectPath, file_id: Uuid) -> ObjectPath {
        prefix.child("files").child(file_id.to_string())
    }

    /// Stores the files of a response being inserted in `tx`.
    pub async fn insert(
        &self,
        tx: &mut Transaction<'_, Postgres>,
        response_id: Uuid,
        files: &[CheckedFile],
    ) -> Result<(), CoreError> {
        for f in files {
            let (content, object_key) = match self {
                Self::Database => (Some(f.content.as_slice()), None),
                Self::Objects { store, prefix } => {
                    let key = Self::key(prefix, f.id);
                    store
                        .put(&key, PutPayload::from(f.content.clone()))
                        .await
                        .map_err(storage_error)?;
                    (None, Some(key.to_string()))
                }
            };
            sqlx::query!(
                "INSERT INTO response_files (id, response_id, field_id, file_name, content_type, size,
                                             content, object_key)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
                f.id,
                response_id,
                f.field_id,
                f.file_name,
                f.content_type,
                i64::try_from(f.content.len()).unwrap_or(i64::MAX),
                content,
                object_key
            )
            .execute(&mut **tx)
            .await?;
        }
        Ok(())
    }

    /// A stored file of a response of a form of the account: name, type and bytes.
    pub async fn get(
        &self,
        pool: &PgPool,
        account_id: Uuid,
        form_id: Uuid,
        response_id: Uuid,
        file_id: Uuid,
    ) -> Result<(String, String, Vec<u8>), CoreError> {
        let row = sqlx::query!(
            "SELECT f.file_name, f.content_type, f.content, f.object_key
                   FROM response_files f
                   JOIN responses r ON r.id = f.response_id
                   JOIN forms fo ON fo.id = r.form_id
                  WHERE f.id = $1 AND r.id = $2 AND r.form_id = $3 AND fo.account_id = $4",
            file_id,
            response_id,
            form_id,
            account_id
        )
        .fetch_optional(pool)
        .await?
        .ok_or(CoreError::NotFound("file"))?;
        let bytes = match (row.content, row.object_key, self) {
            (Some(bytes), _, _) => bytes,
            (None, Some(key), Self::Objects { store, .. }) => store
                .get(&ObjectPath::from(key))
                .await
                .map_err(storage_error)?
                .bytes()
                .await
                .map_err(storage_error)?
                .to_vec(),
            (None, _, _) => {
                return Err(storage_error(
                    "the file is in an object store that is not configured",
                ));
            }
        };
        Ok((row.file_name, row.content_type, bytes))
    }

    /// Object keys of the files of one response, or of every response of a form, read
    /// in `tx` before the rows go.
    pub async fn keys_of(
        tx: &mut Transaction<'_, Postgres>,
        form_id: Uuid,
        response_id: Option<Uuid>,
    ) -> Result<Vec<String>, CoreError> {
        Ok(sqlx::query_scalar!(
            r#"SELECT f.object_key AS "object_key!"
                 FROM response_files f JOIN responses r ON r.id = f.response_id
                WHERE r.form_id = $1 AND ($2::uuid IS NULL OR r.id = $2)
                  AND f.object_key IS NOT NULL"#,
            form_id,
            response_id
        )
        .fetch_all(&mut **tx)
        .await?)
    }

    /// Deletes objects whose rows are gone (after the commit); failures are logged: an
    /// unreferenced object is harmless, a lost one is not.
    pub async fn remove(&self, keys: Vec<String>) {
        if let Self::Objects { store, .. } = self {
            for key in keys {
                if let Err(error) = store.delete(&ObjectPath::from(key.as_str())).await {
                    tracing::warn!(key, %error, "deleting a stored file");
                }
            }
        }
    }
}
