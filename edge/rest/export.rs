//! `GET /forms/{form_id}/responses/export`: the core's ExportResponses stream as a
//! streamed HTTP body, a chunk at a time (never collected).

use crate::http::call::Call;
use crate::http::download;
use crate::http::params::{FormIdOfChild, PathParams};
use crate::http::state::AppState;
use crate::rest::query::{self, Query};
use axum::extract::State;
use axum::response::Response;
use forms::pb;
use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};

/// The query of the export.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct ExportQuery {
    /// The file's format (default `ndjson`).
    #[serde(default, deserialize_with = "query::choice")]
    #[param(inline)]
    format: Option<ExportFormatName>,
    /// Only responses submitted after this instant (exclusive, RFC 3339).
    #[serde(default, deserialize_with = "query::timestamp")]
    #[param(value_type = Option<String>, format = DateTime)]
    since: Option<prost_types::Timestamp>,
    /// Only responses submitted before this instant (exclusive, RFC 3339).
    #[serde(default, deserialize_with = "query::timestamp")]
    #[param(value_type = Option<String>, format = DateTime)]
    until: Option<prost_types::Timestamp>,
    /// Which responses (default `completed`); with `partial` or `all`, each row also
    /// says its `status` and `last_page` (CSV: the last two columns).
    #[serde(default, deserialize_with = "query::choice")]
    #[param(inline)]
    status: Option<super::responses::StatusFilter>,
}

/// A format of the export.
#[derive(Default, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum ExportFormatName {
    /// One JSON object per line, as a response of the listing.
    #[default]
    Ndjson,
    /// A header row, then one row per response (RFC 4180).
    Csv,
    /// The CSV's columns and rows as a workbook, with typed cells.
    Xlsx,
}

impl From<ExportFormatName> for pb::ExportFormat {
    fn from(name: ExportFormatName) -> Self {
        match name {
            ExportFormatName::Ndjson => Self::Ndjson,
            ExportFormatName::Csv => Self::Csv,
            ExportFormatName::Xlsx => Self::Xlsx,
        }
    }
}

/// The query as a request.
fn export_request(
    form_id: String,
    query: ExportQuery,
    filter: super::filter::FilterQuery,
) -> pb::ExportResponsesRequest {
    pb::ExportResponsesRequest {
        form_id,
        format: pb::ExportFormat::from(query.format.unwrap_or_default()).into(),
        since: query.since,
        until: query.until,
        status: query
            .status
            .map_or(pb::ResponseStatus::Unspecified, Into::into)
            .into(),
        filter: filter.into_pb(),
    }
}

/// Export every response of a form
#[utoipa::path(get, path = "/forms/{form_id}/responses/export", operation_id = "exportResponses",
    tag = "responses",
    description = "Scope: read. Every response of the form once, oldest first, from one \
        snapshot, streamed (constant memory on the server; an XLSX is written whole to \
        temporary disk first, then sent). XLSX: the CSV's columns with typed cells \
        (numbers, UTC date-times, dates), every text a string, never a formula. CSV: response id, submission \
        time, metadata columns, then one column per field headed by its label; cells that \
        spreadsheets would run as formulas start with `'`.",
    params(FormIdOfChild, ExportQuery, super::filter::FilterQuery),
    responses((status = 200, description = "The file, streamed as an attachment",
        content((String = "application/x-ndjson"), (String = "text/csv"),
            (String = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")))))]
pub(crate) async fn export(
    State(state): State<AppState>,
    call: Call,
    PathParams(FormIdOfChild(form_id)): PathParams<FormIdOfChild>,
    Query(query): Query<ExportQuery>,
    Query(filter): Query<super::filter::FilterQuery>,
) -> Result<Response, Response> {
    let request = export_request(form_id, query, filter);
    let (form_id, format) = (request.form_id.clone(), request.format());
    let reply = state
        .responses()
        .export_responses(call.request(request))
        .await
        .map_err(|status| call.error(&status))?;
    Ok(download::export(reply, &form_id, format))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rest::query::parse;

    fn export(
        query: &str,
    ) -> Result<(pb::ExportResponsesRequest, &'static str, &'static str), String> {
        parse::<ExportQuery>(query).map(|q| {
            let request = export_request("f".to_owned(), q, Default::default());
            let (media_type, extension) = crate::http::download::media_of(request.format());
            (request, media_type, extension)
        })
    }

    #[test]
    fn the_format_is_ndjson_unless_csv_or_xlsx_is_asked() {
        for query in ["", "format=", "format=ndjson"] {
            let (request, media_type, extension) = export(query).expect(query);
            assert_eq!(request.format(), pb::ExportFormat::Ndjson, "{query}");
            assert_eq!((media_type, extension), ("application/x-ndjson", "ndjson"));
        }
        let (request, media_type, extension) = export("format=csv").expect("csv");
        assert_eq!(request.format(), pb::ExportFormat::Csv);
        assert_eq!((media_type, extension), ("text/csv; charset=utf-8", "csv"));
        let (request, media_type, extension) = export("format=xlsx").expect("xlsx");
        assert_eq!(request.format(), pb::ExportFormat::Xlsx);
        assert_eq!(
            (media_type, extension),
            (
                "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
                "xlsx"
            )
        );
    }

    #[test]
    fn since_and_until_bound_the_export() {
        let (request, _, _) =
            export("since=2026-01-01T00:00:10Z&until=2026-01-01T00:00:20%2B00:00").expect("valid");
        let at = |seconds| Some(prost_types::Timestamp { seconds, nanos: 0 });
        assert_eq!(request.since, at(1_767_225_610));
        assert_eq!(request.until, at(1_767_225_620));
        let (request, _, _) = export("since=&until=").expect("empty bounds");
        assert_eq!((request.since, request.until), (None, None));
    }

    #[test]
    fn a_bad_value_is_refused_naming_its_parameter() {
        query::assert_refused::<ExportQuery>(&[
            (
                "format=xml",
                r#"format must be ndjson, csv or xlsx, got "xml""#,
            ),
            (
                "format=CSV%20",
                r#"format must be ndjson, csv or xlsx, got "CSV ""#,
            ),
            (
                "since=12345",
                r#"since must be an ISO 8601 timestamp such as 2026-01-31T12:00:00Z, got "12345""#,
            ),
            (
                "until=2026-13-01T00:00:00Z",
                r#"until must be an ISO 8601 timestamp such as 2026-01-31T12:00:00Z, got "2026-13-01T00:00:00Z""#,
            ),
        ]);
    }
}
