//! Files uploaded with browser submissions: checked against their field (extension,
//! size, and the type their content really has), then stored with the response.
//!
//! Storage sits behind the functions of `store`. A submission's files are checked and
//! *staged* (written, unattached) before the form's row is locked, then attached to the
//! response in its transaction: the slow part, moving bytes, holds no lock. A staged
//! file that no response claims (the submission was refused, rolled back or cut off by
//! a crash) is swept after a grace period.

pub(crate) mod store;

use crate::Problem;
use crate::error::{CoreError, FieldError};
use crate::forms::{Field, FieldKind};
use serde_json::{Map, Value, json};
use uuid::Uuid;

/// Largest upload of a file field that does not set `max_size_mb`.
pub(crate) const DEFAULT_MAX_MB: f64 = 10.0;
/// Extensions accepted without a content signature, if the bytes are UTF-8 text.
const TEXT_TYPES: &[&str] = &["txt", "csv", "md", "json", "xml", "tsv"];

/// A file as the visitor sent it.
#[derive(Debug, Clone)]
pub(crate) struct Upload {
    pub field_id: String,
    pub file_name: String,
    pub content: Vec<u8>,
}

/// A checked upload, ready to store.
#[derive(Debug, Clone)]
pub(crate) struct CheckedFile {
    pub id: Uuid,
    pub field_id: String,
    pub file_name: String,
    pub content_type: String,
    pub content: Vec<u8>,
}

impl CheckedFile {
    /// The answer that refers to this file: what API clients read and download by.
    pub(crate) fn answer(&self) -> Value {
        json!({
            "file_id": self.id,
            "name": self.file_name,
            "size": self.content.len(),
            "content_type": self.content_type,
        })
    }
}

fn extension(name: &str) -> Option<String> {
    let (_, ext) = name.rsplit_once('.')?;
    let ext = ext.to_ascii_lowercase();
    (!ext.is_empty()).then_some(ext)
}

/// Whether two extensions name the same type.
fn same_type(a: &str, b: &str) -> bool {
    let canonical = |e: &str| match e {
        "jpeg" | "jpe" => "jpg".to_owned(),
        "tif" => "tiff".to_owned(),
        other => other.to_owned(),
    };
    canonical(a) == canonical(b)
}

/// The largest file `field` takes, in bytes.
pub(crate) fn max_bytes(field: &Field) -> u64 {
    let max_mb = field.max_size_mb.unwrap_or(DEFAULT_MAX_MB);
    // Whole bytes: the fraction of a byte that `max_size_mb` may imply is no file's.
    (max_mb * 1024.0 * 1024.0).floor() as u64
}

/// Files staged for a submission: their ids, and the answers that refer to them by
/// field id. Empty for a submission without files.
#[derive(Debug, Clone, Default)]
pub(crate) struct Staged {
    pub ids: Vec<Uuid>,
    pub answers: Map<String, Value>,
}

/// Checks uploads against the form's fields (one file per file field); returns the
/// files to store and the answers that refer to them, keyed by field id. Every problem
/// is reported at once, as answer validation does.
pub(crate) fn check_all(
    fields: &[Field],
    uploads: Vec<Upload>,
) -> Result<(Vec<CheckedFile>, Map<String, Value>), CoreError> {
    let mut checked = Vec::new();
    let mut answers = Map::new();
    let mut errors = Vec::new();
    for upload in uploads {
        let field = fields
            .iter()
            .find(|f| f.id.to_string() == upload.field_id && f.kind == FieldKind::FileUpload);
        let Some(field) = field else {
            errors.push(not_a_file_field(&upload.field_id));
            continue;
        };
        if answers.contains_key(&upload.field_id) {
            errors.push(FieldError {
                field: upload.field_id.clone(),
                label: field.label.clone(),
                problem: Problem::new("one-file", "takes one file"),
            });
            continue;
        }
        match check(field, upload) {
            Ok(file) => {
                answers.insert(file.field_id.clone(), file.answer());
                checked.push(file);
            }
            Err(problem) => errors.push(FieldError {
                field: field.id.to_string(),
                label: field.label.clone(),
                problem,
            }),
        }
    }
    if errors.is_empty() {
        Ok((checked, answers))
    } else {
        Err(CoreError::FieldErrors(errors))
    }
}

/// The error of a file sent for `field_id`, which is no file field of the form.
pub(crate) fn not_a_file_field(field_id: &str) -> FieldError {
    FieldError {
        field: field_id.to_owned(),
        label: String::new(),
        problem: Problem::new("not-file-field", "is not a file field of this form"),
    }
}

/// Checks an upload against its field; `Err` says what is wrong, for the visitor.
pub(crate) fn check(field: &Field, upload: Upload) -> Result<CheckedFile, Problem> {
    if upload.content.is_empty() {
        return Err(Problem::new("empty-file", "is an empty file"));
    }
    if upload.content.len() as u64 > max_bytes(field) {
        let max_mb = field.max_size_mb.unwrap_or(DEFAULT_MAX_MB);
        return Err(
            Problem::new("file-too-big", format!("must be at most {max_mb} MB")).arg("mb", max_mb),
        );
    }
    let claimed = extension(&upload.file_name)
        .ok_or_else(|| Problem::new("file-extension", "must have a file extension"))?;
    if !field.allowed_types.is_empty()
        && !field.allowed_types.iter().any(|t| same_type(t, &claimed))
    {
        let types = field.allowed_types.join(", ");
        return Err(
            Problem::new("file-type", format!("must be one of: {types}")).arg("types", types),
        );
    }
    // The content decides: a renamed executable is not a PDF.
    let content_type = match infer::get(&upload.content) {
        Some(kind) if same_type(kind.extension(), &claimed) => kind.mime_type().to_owned(),
        Some(kind) => {
            return Err(Problem::new(
                "file-content",
                format!("looks like a .{} file, not .{claimed}", kind.extension()),
            )
            .arg("claimed", &claimed));
        }
        None if TEXT_TYPES.contains(&claimed.as_str())
            && std::str::from_utf8(&upload.content).is_ok() =>
        {
            "text/plain; charset=utf-8".to_owned()
        }
        None => {
            return Err(Problem::new(
                "file-content",
                format!("does not look like a .{claimed} file"),
            )
            .arg("claimed", &claimed));
        }
    };
    let file_name: String = upload
        .file_name
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or("file")
        .chars()
        .filter(|c| !c.is_control())
        .take(255)
        .collect();
    Ok(CheckedFile {
        id: Uuid::now_v7(),
        field_id: upload.field_id,
        file_name,
        content_type,
        content: upload.content,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(types: &[&str], max: Option<f64>) -> Field {
        Field {
            id: Uuid::new_v4(),
            kind: crate::forms::FieldKind::FileUpload,
            label: "CV".into(),
            required: true,
            placeholder: None,
            allowed_types: types.iter().map(|t| (*t).to_owned()).collect(),
            max_size_mb: max,
            correct_answer: None,
            points: None,
            ..Field::default()
        }
    }

    fn upload(name: &str, content: &[u8]) -> Upload {
        Upload {
            field_id: "f".into(),
            file_name: name.into(),
            content: content.to_vec(),
        }
    }

    const PNG: &[u8] =
        b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0\x1f\x15\xc4\x89";

    #[test]
    fn extension_size_and_content_are_checked() {
        let f = field(&["png", "pdf"], Some(1.0));
        let ok = check(&f, upload("C:\\photos\\me.PNG", PNG)).expect("a png");
        assert_eq!(
            (ok.file_name.as_str(), ok.content_type.as_str()),
            ("me.PNG", "image/png")
        );
        assert!(
            check(&f, upload("me.gif", PNG)).is_err(),
            "extension not allowed"
        );
        assert!(
            check(&f, upload("me.pdf", PNG)).is_err(),
            "content is not a pdf"
        );
        assert!(
            check(&f, upload("notes.pdf", b"just text")).is_err(),
            "no signature"
        );
        assert!(
            check(&f, upload("big.png", &vec![0u8; 2 * 1024 * 1024])).is_err(),
            "too large"
        );
        let text = field(&["txt"], None);
        assert!(check(&text, upload("a.txt", b"hello")).is_ok());
        assert!(check(&text, upload("a.txt", &[0xff, 0xfe, 0x00])).is_err());
    }
}
