// End-to-end script of the generated REST client, run by tests/api/clients.rs against
// the real server: create a form, publish it, post a response with an Idempotency-Key
// (and replay it), read it back by cursor, and read an error's code.
//
// Env: FORMS_REST_URL (e.g. http://127.0.0.1:8080/api/v1), FORMS_API_KEY.
import createClient from "openapi-fetch";
import type { components, paths } from "./schema.js";

type Pagination = components["schemas"]["ResponsePagination"];
import { randomUUID } from "node:crypto";

function check(condition: unknown, what: string): asserts condition {
  if (!condition) throw new Error(`failed: ${what}`);
}

const baseUrl = process.env.FORMS_REST_URL;
const key = process.env.FORMS_API_KEY;
check(baseUrl && key, "FORMS_REST_URL and FORMS_API_KEY are set");

const api = createClient<paths>({ baseUrl, headers: { "x-api-key": key } });

const created = await api.POST("/forms", {
  body: {
    title: "REST client e2e",
    fields: [{ type: "short_text", label: "Name", required: true }],
  },
});
check(created.response.status === 201 && created.data?.data.form, "form created");
const form = created.data.data.form;
check(form.status === "draft", "a new form is a draft");
const fieldId = form.fields[0].id;

const published = await api.PUT("/forms/{id}", {
  params: { path: { id: form.id } },
  body: { status: "published" },
});
check(published.data?.data.form?.status === "published", "form published");

const idempotencyKey = randomUUID();
const post = () =>
  api.POST("/forms/{form_id}/responses", {
    params: { path: { form_id: form.id }, header: { "Idempotency-Key": idempotencyKey } },
    body: { answers: { [fieldId]: "Ada" }, metadata: { via: "rest-typescript" } },
  });
const first = await post();
check(first.response.status === 201 && first.data?.data.response, "response created");
const response = first.data.data.response;
check(response.metadata.source === "api", "metadata.source is api");
const replay = await post();
check(replay.response.headers.get("Idempotent-Replayed") === "true", "replayed");
check(replay.data?.data.response?.id === response.id, "the replay is the same response");

// Cursor mode from an empty cursor until next_cursor is null.
const seen: string[] = [];
let cursor: string | null = "";
while (cursor !== null) {
  const page: {
    data?: { data: { responses: { id: string }[]; pagination?: Pagination | null } };
    response: Response;
  } = await api.GET("/forms/{form_id}/responses", {
    params: { path: { form_id: form.id }, query: { cursor, per_page: 100, sort: "asc" } },
  });
  check(page.data, `a page (${page.response.status})`);
  seen.push(...page.data.data.responses.map((r) => r.id));
  const pagination: Pagination | null | undefined = page.data.data.pagination;
  check(pagination && "next_cursor" in pagination, "cursor pagination");
  cursor = pagination.next_cursor;
}
check(seen.length === 1 && seen[0] === response.id, `one response by cursor: ${seen}`);

const missing = await api.GET("/forms/{id}", {
  params: { path: { id: randomUUID() } },
});
check(missing.response.status === 404, "unknown form is 404");
check(missing.error?.error.code === "NOT_FOUND", "its code is NOT_FOUND");

console.log(`rest-typescript e2e: form ${form.id}, response ${response.id}: ok`);
