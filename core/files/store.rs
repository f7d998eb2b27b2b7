//! Where files live: in PostgreSQL by default (in the row, in the response's
//! transaction), or in an object store named by URL (`file:///dir`, `s3://bucket/prefix`
//! with the usual AWS_* environment) for scale-out.
//!
//! Files are staged (row, then object) before the submission's transaction and attached
//! in it; unattached ones are swept. A deleted response's objects are deleted after its
//! rows' delete commits: a crash in between can leave an unreferenced object, never a
//! row without its object.

use super::CheckedFile;
use crate::error::CoreError;
use object_store::{ObjectStore, PutPayload, path::Path as ObjectPath};
use sqlx::{PgPool, Postgres, Transaction};
use std::sync::Arc;
use uuid::Uuid;

/// The file storage of the service.
#[derive(Clone)]
pub(crate) enum FileStore {
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
    pub(crate) fn from_url(url: Option<&str>) -> Result<Self, CoreError> {
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

    /// Writes checked files unattached ("staged"), before any lock is taken; a response
    /// claims them with [`FileStore::attach`] by `until`, or they are swept. The row goes
    /// first, then the object: an object never exists without a row that leads to it.
    pub(crate) async fn stage(
        &self,
        pool: &PgPool,
        files: Vec<CheckedFile>,
        until: chrono::DateTime<chrono::Utc>,
    ) -> Result<Vec<Uuid>, CoreError> {
        let mut ids = Vec::with_capacity(files.len());
        for f in files {
            let size = i64::try_from(f.content.len()).unwrap_or(i64::MAX);
            let object_key = match self {
                Self::Database => None,
                Self::Objects { prefix, .. } => Some(Self::key(prefix, f.id).to_string()),
            };
            let (content, payload) = match self {
                Self::Database => (Some(f.content), None),
                Self::Objects { .. } => (None, Some(PutPayload::from(f.content))),
            };
            sqlx::query!(
                "INSERT INTO response_files (id, response_id, field_id, file_name, content_type, size,
                                             content, object_key, staged_until)
                 VALUES ($1, NULL, $2, $3, $4, $5, $6, $7, $8)",
                f.id,
                f.field_id,
                f.file_name,
                f.content_type,
                size,
                content,
                object_key,
                until
            )
            .execute(pool)
            .await?;
            ids.push(f.id);
            if let (Self::Objects { store, .. }, Some(key), Some(payload)) =
                (self, object_key, payload)
                && let Err(error) = store.put(&ObjectPath::from(key), payload).await
            {
                self.unstage(pool, &ids).await;
                return Err(storage_error(error));
            }
        }
        Ok(ids)
    }

    /// Attaches staged files to a response being inserted in `tx`. A file swept meanwhile
    /// (its submission outlived the grace period) fails the submission.
    pub(crate) async fn attach(
        tx: &mut Transaction<'_, Postgres>,
        response_id: Uuid,
        ids: &[Uuid],
    ) -> Result<(), CoreError> {
        if ids.is_empty() {
            return Ok(());
        }
        let attached = sqlx::query!(
            "UPDATE response_files SET response_id = $1, staged_until = NULL
              WHERE id = ANY($2) AND response_id IS NULL",
            response_id,
            ids
        )
        .execute(&mut **tx)
        .await?
        .rows_affected();
        if attached != ids.len() as u64 {
            return Err(CoreError::Internal(
                "staged files were swept before their submission was stored".into(),
            ));
        }
        Ok(())
    }

    /// Removes staged files of a submission that was not stored, at once rather than at
    /// the next sweep. Failures are logged: the sweep gets them later.
    pub(crate) async fn unstage(&self, pool: &PgPool, ids: &[Uuid]) {
        if ids.is_empty() {
            return;
        }
        if let Err(error) = self.remove_staged(pool, Some(ids)).await {
            tracing::warn!(%error, "removing the staged files of a refused submission");
        }
    }

    /// Removes staged files that no response claimed by their deadline (a batch);
    /// returns how many went.
    pub(crate) async fn sweep(&self, pool: &PgPool) -> Result<usize, CoreError> {
        self.remove_staged(pool, None).await
    }

    /// Removes unattached files: `only` these, or every one past its deadline. The rows
    /// are locked while their objects are deleted, so that a submission cannot attach a
    /// file whose object is going; a row goes only once its object is gone.
    async fn remove_staged(
        &self,
        pool: &PgPool,
        only: Option<&[Uuid]>,
    ) -> Result<usize, CoreError> {
        let mut tx = pool.begin().await?;
        let rows = sqlx::query!(
            "SELECT id, object_key FROM response_files
              WHERE response_id IS NULL
                AND (id = ANY($1) OR ($1 IS NULL AND staged_until < clock_timestamp()))
              ORDER BY staged_until
              LIMIT 500
                FOR UPDATE SKIP LOCKED",
            only as Option<&[Uuid]>
        )
        .fetch_all(&mut *tx)
        .await?;
        let mut gone = Vec::with_capacity(rows.len());
        for row in rows {
            match (&row.object_key, self) {
                (Some(key), Self::Objects { store, .. }) => {
                    match store.delete(&ObjectPath::from(key.as_str())).await {
                        Ok(()) | Err(object_store::Error::NotFound { .. }) => gone.push(row.id),
                        Err(error) => tracing::warn!(key, %error, "deleting a staged file"),
                    }
                }
                // An object in a store this instance does not have: its row stays, so
                // that an instance configured with the store can remove both.
                (Some(_), Self::Database) => {}
                (None, _) => gone.push(row.id),
            }
        }
        sqlx::query!("DELETE FROM response_files WHERE id = ANY($1)", &gone[..])
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(gone.len())
    }

    /// A stored file of a response of a form of the account: name, type and bytes.
    pub(crate) async fn get(
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
    pub(crate) async fn keys_of(
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
    pub(crate) async fn remove(&self, keys: Vec<String>) {
        if let Self::Objects { store, .. } = self {
            for key in keys {
                if let Err(error) = store.delete(&ObjectPath::from(key.as_str())).await {
                    tracing::warn!(key, %error, "deleting a stored file");
                }
            }
        }
    }
}

/// A staged file still waiting for its response.
pub(crate) struct Waiting {
    pub id: Uuid,
    pub field_id: String,
    pub file_name: String,
    pub content_type: String,
    pub size: i64,
}

/// The files among `ids` still staged (unattached, their wait not over), their wait
/// now at least until `until`: the files a refused page keeps for its next post
/// (`hosted::kept`). A file whose wait is over is left to the sweep, and not returned.
pub(crate) async fn keep_staged(
    pool: &PgPool,
    ids: &[Uuid],
    until: chrono::DateTime<chrono::Utc>,
) -> Result<Vec<Waiting>, CoreError> {
    let rows = sqlx::query_as!(
        Waiting,
        "UPDATE response_files SET staged_until = greatest(staged_until, $2)
          WHERE id = ANY($1) AND response_id IS NULL AND staged_until > now()
          RETURNING id, field_id, file_name, content_type, size",
        ids,
        until
    )
    .fetch_all(pool)
    .await?;
    Ok(rows)
}
