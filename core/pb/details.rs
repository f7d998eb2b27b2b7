//! Messages of ours carried as error details: packed into, and read from, the
//! `google.rpc.Status` that a `tonic::Status` holds beside the `ErrorInfo`.

use super::HostedFormPage;
use prost::Message;

impl prost::Name for HostedFormPage {
    const NAME: &'static str = "HostedFormPage";
    const PACKAGE: &'static str = "forms.v1";
}

/// `status` with `detail` added to its details; code, message, metadata and the
/// details already there (ErrorInfo, RetryInfo) are kept.
pub fn with_detail<M: prost::Name>(status: tonic::Status, detail: &M) -> tonic::Status {
    // A status built without details has none to decode: start from an empty list.
    let mut rpc = tonic_types::Status::decode(status.details()).unwrap_or_default();
    rpc.code = status.code() as i32;
    rpc.message = status.message().to_owned();
    match prost_types::Any::from_msg(detail) {
        Ok(any) => rpc.details.push(any),
        // Encoding into a Vec cannot run out of room; keep the status as it is.
        Err(_) => return status,
    }
    tonic::Status::with_details_and_metadata(
        status.code(),
        status.message(),
        prost::bytes::Bytes::from(rpc.encode_to_vec()),
        status.metadata().clone(),
    )
}

/// The first detail of type `M` in `status`, if it carries one that decodes.
pub fn detail<M: prost::Name + Default>(status: &tonic::Status) -> Option<M> {
    let rpc = tonic_types::Status::decode(status.details()).ok()?;
    let type_url = M::type_url();
    rpc.details
        .iter()
        .filter(|any| any.type_url == type_url)
        .find_map(|any| any.to_msg().ok())
}

#[cfg(test)]
mod tests {
    use super::*;
    use tonic_types::{ErrorDetails, StatusExt};

    #[test]
    fn a_detail_travels_beside_the_error_info() {
        let details = ErrorDetails::with_error_info(
            "VALIDATION_ERROR",
            "forms.v1",
            std::collections::HashMap::from([("field.x".to_owned(), "X is required".to_owned())]),
        );
        let status =
            tonic::Status::with_error_details(tonic::Code::InvalidArgument, "bad", details);
        assert_eq!(detail::<HostedFormPage>(&status), None);
        let page = HostedFormPage {
            form: None,
            start_token: "token".to_owned(),
            pow_challenge: None,
            progress: None,
            kept_files: Vec::new(),
        };
        let status = with_detail(status, &page);
        assert_eq!(status.code(), tonic::Code::InvalidArgument);
        assert_eq!(status.message(), "bad");
        assert_eq!(detail::<HostedFormPage>(&status), Some(page));
        let info = status.get_details_error_info().expect("ErrorInfo kept");
        assert_eq!(info.reason, "VALIDATION_ERROR");
        assert_eq!(info.metadata["field.x"], "X is required");
    }

    #[test]
    fn a_status_without_details_gets_one() {
        let page = HostedFormPage::default();
        let status = with_detail(tonic::Status::permission_denied("no"), &page);
        assert_eq!(detail::<HostedFormPage>(&status), Some(page));
    }
}
