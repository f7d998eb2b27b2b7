//! A form's logo: one uploaded image per form, kept where uploaded files are
//! (`files::store::FileStore`: in its row, or in the object store under
//! `logos/{logo id}`), and the theme's conversions to and from protobuf that the forms
//! and hosted services share.
//!
//! A new logo gets a new id, so that the page's link to it changes with it and a cached
//! copy of the old one is never shown. The old one's object goes after the commit (a
//! crash in between leaves an unreferenced object, never a row without its object).

use super::store;
use super::theme::{LogoRef, Theme, logo_type};
use crate::error::CoreError;
use crate::files::store::FileStore;
use crate::pb;
use object_store::{PutPayload, path::Path as ObjectPath};
use sqlx::{PgPool, Postgres, Transaction};
use uuid::Uuid;

fn storage_error(e: impl std::fmt::Display) -> CoreError {
    CoreError::Internal(format!("logo storage: {e}"))
}

/// A checked logo, stored: what the theme names.
pub(crate) struct StoredLogo {
    pub logo: LogoRef,
    /// The object of the logo it replaced, to delete once the change commits.
    pub replaced: Option<String>,
}

/// Checks `bytes` and stores them as the logo of form `form_id` in `tx` (the form's
/// row is locked by the caller), replacing the one before.
pub(crate) async fn put(
    files: &FileStore,
    tx: &mut Transaction<'_, Postgres>,
    form_id: Uuid,
    bytes: Vec<u8>,
) -> Result<StoredLogo, CoreError> {
    let content_type = logo_type(&bytes)?;
    let id = Uuid::new_v4();
    let size = i64::try_from(bytes.len()).unwrap_or(i64::MAX);
    let replaced = remove(tx, form_id).await?;
    let (content, object_key) = match files {
        FileStore::Database => (Some(bytes), None),
        FileStore::Objects { store, prefix } => {
            let key = prefix.child("logos").child(id.to_string());
            // The object first: the row that leads to it commits only if it is there.
            store
                .put(&key, PutPayload::from(bytes))
                .await
                .map_err(storage_error)?;
            (None, Some(key.to_string()))
        }
    };
    let row = store::LogoRow {
        id,
        content_type,
        size,
        content,
        object_key,
    };
    store::insert_logo(tx, form_id, row).await?;
    Ok(StoredLogo {
        logo: LogoRef {
            id,
            content_type: content_type.to_owned(),
            size,
        },
        replaced,
    })
}

/// Removes the logo row of a form in `tx`; returns its object key, if any, to delete
/// after the commit.
pub(crate) async fn remove(
    tx: &mut Transaction<'_, Postgres>,
    form_id: Uuid,
) -> Result<Option<String>, CoreError> {
    store::delete_logo(tx, form_id).await
}

/// The logo of a form: its id, type and bytes; None without one.
pub(crate) async fn get(
    files: &FileStore,
    pool: &PgPool,
    form_id: Uuid,
) -> Result<Option<(Uuid, String, Vec<u8>)>, CoreError> {
    let Some(row) = store::logo(pool, form_id).await? else {
        return Ok(None);
    };
    let bytes = match (row.content, row.object_key, files) {
        (Some(bytes), _, _) => bytes,
        (None, Some(key), FileStore::Objects { store, .. }) => store
            .get(&ObjectPath::from(key))
            .await
            .map_err(storage_error)?
            .bytes()
            .await
            .map_err(storage_error)?
            .to_vec(),
        (None, _, _) => {
            return Err(storage_error(
                "the logo is in an object store that is not configured",
            ));
        }
    };
    Ok(Some((row.id, row.content_type, bytes)))
}

/// A theme as the API shows it.
pub(crate) fn theme_to_pb(theme: Theme) -> pb::FormTheme {
    pb::FormTheme {
        accent: theme.accent,
        background: theme.background,
        font: theme.font,
        radius: theme.radius,
        appearance: theme.appearance,
        logo: theme.logo.map(|l| pb::FormLogo {
            id: l.id.to_string(),
            content_type: l.content_type,
            size: l.size,
        }),
    }
}

/// A theme as a client sent it; its logo is not taken (a logo is uploaded).
pub(crate) fn theme_from_pb(theme: pb::FormTheme) -> Theme {
    Theme {
        accent: theme.accent,
        background: theme.background,
        font: theme.font,
        radius: theme.radius,
        appearance: theme.appearance,
        logo: None,
    }
}
