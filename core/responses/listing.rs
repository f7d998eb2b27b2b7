//! The response list of ResponsesService: a page or a cursor's slice of a form's
//! responses. A plain list (completed responses, no filter, nothing to count) reads
//! the form's maintained count and an index; any other costs what the caller chose
//! (a filter, a search, a count, partial responses) and runs as a bounded read
//! (`bounded`), under the cap on such reads.

use super::Response;
use super::bounded::{Bounded, Isolation};
use super::cursor::Sort;
use super::filter;
use super::service::{Responses, instant, response_in_form, sort_from_pb, statuses_from_pb};
use super::store::{self, Selection, Statuses, Window};
use crate::error::CoreError;
use crate::forms::logic;
use crate::gate::Ctx;
use crate::paging::Page;
use crate::pb;
use crate::rpc::parse_id;

/// What a list asks for, once checked.
struct Listing<'a> {
    sel: Selection<'a>,
    sort: Sort,
    page: Page,
    cursor: Option<String>,
    /// The form's maintained count of completed responses.
    count: i64,
}

impl Responses {
    pub(super) async fn list(
        &self,
        ctx: Ctx,
        req: pb::ListResponsesRequest,
    ) -> Result<pb::ListResponsesResponse, CoreError> {
        let form_id = parse_id(&req.form_id, "form")?;
        let sort = sort_from_pb(req.sort)?;
        let window = Window::new(
            instant(req.since.as_ref(), "since")?,
            instant(req.until.as_ref(), "until")?,
        );
        let page = Page::new(req.page, req.per_page)?;
        let statuses = statuses_from_pb(req.status)?;
        let filtering = req
            .filter
            .as_ref()
            .is_some_and(|f| *f != pb::ResponseFilter::default());
        let account = ctx.caller.account_id;
        let ((count, fields), read_pool) = self
            .replicas
            .read_first(|pool| async move {
                store::form_response_count(&pool, account, form_id, filtering).await
            })
            .await?;
        let read_pool = &read_pool;
        let filter = filter::parse(req.filter.as_ref(), fields.as_deref().unwrap_or_default())?;
        let paged = fields.filter(|f| logic::has_pages(f));
        let to_pb = |r: Response| response_in_form(r, paged.as_deref());
        let sel = Selection {
            form_id,
            window,
            statuses,
            filter: &filter,
        };
        let listing = Listing {
            sel,
            sort,
            page,
            cursor: req.cursor,
            count,
        };
        // A list that filters, searches, counts or reads partial responses costs what
        // the caller chose: it runs bounded and takes a place under the cap.
        let plain = filter.is_empty()
            && statuses == Statuses::Completed
            && (listing.cursor.is_some() || window.is_open());
        if plain {
            let mut conn = read_pool.acquire().await?;
            return self.list_in(&mut conn, listing, &to_pb).await;
        }
        let permit = self.gate.reads().try_take(ctx.caller.account_id)?;
        let limit = self.config.reads.statement_timeout;
        let mut read = Bounded::begin(read_pool, Isolation::Committed, limit, permit).await?;
        let listed = match read.conn() {
            Ok(db) => self.list_in(db, listing, &to_pb).await,
            Err(e) => Err(e),
        };
        let listed = listed.map_err(|e| read.explain(e));
        read.finish().await;
        listed
    }

    /// The page or the cursor's slice of `listing`, read on `db`.
    async fn list_in(
        &self,
        db: &mut sqlx::PgConnection,
        listing: Listing<'_>,
        to_pb: &impl Fn(Response) -> pb::FormResponse,
    ) -> Result<pb::ListResponsesResponse, CoreError> {
        let Listing {
            sel,
            sort,
            page,
            cursor,
            count,
        } = listing;
        let form_id = sel.form_id;
        let Some(token) = cursor else {
            // Page mode: the form's maintained count is the total unless a window, a
            // filter or partial responses narrow or widen it.
            let total = if sel.statuses == Statuses::Completed
                && sel.window.is_open()
                && sel.filter.is_empty()
            {
                count
            } else {
                store::count(db, &sel).await?
            };
            let start = store::start_position(sort);
            let rows = store::list(db, &sel, sort, start, page.limit(), page.offset()).await?;
            return Ok(pb::ListResponsesResponse {
                responses: rows.into_iter().map(to_pb).collect(),
                pagination: Some(pb::list_responses_response::Pagination::Page(
                    page.pagination(total),
                )),
            });
        };
        let from = if token.trim().is_empty() {
            store::start_position(sort)
        } else {
            self.cursors.decode(&token, form_id, sort)?
        };
        let mut rows = store::list(db, &sel, sort, from, page.limit() + 1, 0).await?;
        let more = rows.len() > page.per_page as usize;
        rows.truncate(page.per_page as usize);
        let next_cursor = match rows.last() {
            Some(last) if more => Some(self.cursors.encode(
                form_id,
                sort,
                super::cursor::Position {
                    submitted_at: last.submitted_at,
                    id: last.id,
                },
            )),
            _ => None,
        };
        Ok(pb::ListResponsesResponse {
            responses: rows.into_iter().map(to_pb).collect(),
            pagination: Some(pb::list_responses_response::Pagination::Cursor(
                pb::CursorPagination {
                    per_page: page.per_page,
                    next_cursor,
                },
            )),
        })
    }
}
