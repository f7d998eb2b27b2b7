// End-to-end check of the generated TypeScript client against a running formsd:
//
//   npx tsx clients/typescript/e2e.ts --url http://127.0.0.1:50051 --key fsk_... [--limited-key fsk_...]
//
// (or FORMS_GRPC_URL, FORMS_API_KEY, FORMS_LIMITED_API_KEY in the environment). The key
// needs the read and write scopes. The rate-limit step sends GetUsage calls with the
// limited key (default: the main key) until the server answers RATE_LIMITED, at most
// --max-calls times: give it a key whose plan has a small limit (e.g. a pro key on a
// server started with `--pro-rate-limit 5`). Prints each step; exits non-zero on the
// first failed check.

import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";
import { Code, ConnectError, createClient, type Interceptor } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { FormStatus, FormsService } from "./src/gen/forms/v1/forms_pb.js";
import { ResponsesService, SortOrder } from "./src/gen/forms/v1/responses_pb.js";
import { UsageService } from "./src/gen/forms/v1/usage_pb.js";
import { ErrorInfoSchema, errorDetails } from "./src/rpc.js";

const ERROR_DOMAIN = "forms.v1";

function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

/** Sends `key` as `x-api-key` metadata on every call. */
function apiKey(key: string): Interceptor {
  return (next) => (req) => {
    req.header.set("x-api-key", key);
    return next(req);
  };
}

/** Runs `call`, which must fail; returns its error. */
async function failure(call: () => Promise<unknown>): Promise<ConnectError> {
  try {
    await call();
  } catch (e) {
    return ConnectError.from(e);
  }
  throw new Error("the call succeeded");
}

async function main() {
  const { values: args } = parseArgs({
    options: {
      url: { type: "string", default: process.env.FORMS_GRPC_URL ?? "http://127.0.0.1:50051" },
      key: { type: "string", default: process.env.FORMS_API_KEY },
      "limited-key": { type: "string", default: process.env.FORMS_LIMITED_API_KEY },
      "max-calls": { type: "string", default: "50" },
    },
  });
  const key = args.key;
  check(key, "an API key is needed: --key or FORMS_API_KEY");
  const limitedKey = args["limited-key"] || key;

  // gRPC over HTTP/2 (prior knowledge for http:// URLs), the key on every call.
  const transport = createGrpcTransport({ baseUrl: args.url, interceptors: [apiKey(key)] });
  const forms = createClient(FormsService, transport);
  const responses = createClient(ResponsesService, transport);

  // A form with two fields, in status draft.
  const { form } = await forms.createForm({
    title: "TypeScript client e2e",
    description: "made by clients/typescript/e2e.ts",
    fields: [
      { type: "short_text", label: "Name", required: true },
      { type: "email", label: "Email", required: false },
    ],
  });
  check(form, "CreateForm returned a form");
  check(form.status === FormStatus.DRAFT, `new form status ${form.status}`);
  check(form.fields.length === 2 && form.fields.every((f) => f.id), "field ids assigned");
  const [nameId, emailId] = form.fields.map((f) => f.id);
  console.log(`created form ${form.id} with fields ${nameId}, ${emailId}`);

  // Published through UpdateForm with a field mask.
  const { form: published } = await forms.updateForm({
    id: form.id,
    form: { status: FormStatus.PUBLISHED },
    updateMask: { paths: ["status"] },
  });
  check(published?.status === FormStatus.PUBLISHED, "published");
  check(published.publishedAt, "published_at set");
  check(published.title === form.title, "title kept by the partial update");
  console.log("published it");

  // A response with an idempotency key; the same call again replays it.
  const request = { formId: form.id, answers: { [nameId]: "Ada Lovelace", [emailId]: "ada@example.com" } };
  const idempotencyKey = `ts-${randomUUID()}`;
  const replayFlags: (string | null)[] = [];
  const create = () =>
    responses.createResponse(request, {
      headers: { "idempotency-key": idempotencyKey },
      onHeader: (headers) => replayFlags.push(headers.get("idempotent-replayed")),
    });
  const first = (await create()).response;
  const again = (await create()).response;
  check(first && again, "CreateResponse returned responses");
  check(replayFlags[0] !== "true", "first is no replay");
  check(replayFlags[1] === "true", `idempotent-replayed on the repeat: ${replayFlags[1]}`);
  check(again.id === first.id, "the repeat replays the same response");
  check(first.answers?.[nameId] === "Ada Lovelace", "answers stored");
  check(first.metadata?.source === "api", "metadata.source is api");
  console.log(`created response ${first.id}; the repeat replayed it`);

  for (const name of ["Grace Hopper", "Edsger Dijkstra"]) {
    await responses.createResponse({ formId: form.id, answers: { [nameId]: name } });
  }

  // Three responses, listed by cursor two at a time: two pages.
  const list = (cursor: string) =>
    responses.listResponses({ formId: form.id, perPage: 2, sort: SortOrder.ASC, cursor });
  const page1 = await list("");
  check(page1.pagination.case === "cursor", `cursor mode, got ${page1.pagination.case}`);
  check(page1.responses.length === 2, `first page has 2, got ${page1.responses.length}`);
  const next = page1.pagination.value.nextCursor;
  check(next !== undefined, "first page has a next cursor");
  const page2 = await list(next);
  check(page2.pagination.case === "cursor", "cursor mode");
  check(page2.responses.length === 1, `second page has 1, got ${page2.responses.length}`);
  check(page2.pagination.value.nextCursor === undefined, "no cursor after the last page");
  const names = [...page1.responses, ...page2.responses].map((r) => r.answers?.[nameId]);
  check(
    JSON.stringify(names) === JSON.stringify(["Ada Lovelace", "Grace Hopper", "Edsger Dijkstra"]),
    `cursor order: ${names}`,
  );
  console.log(`listed ${names.length} responses in two cursor pages`);

  // An unknown form: NOT_FOUND, with ErrorInfo in the grpc-status-details-bin trailer.
  const notFound = await failure(() => forms.getForm({ id: randomUUID() }));
  check(notFound.code === Code.NotFound, `code ${Code[notFound.code]}: ${notFound.message}`);
  const info = errorDetails(notFound)?.errorInfo;
  check(info, `no ErrorInfo in ${notFound.message}`);
  check(info.reason === "NOT_FOUND", `reason ${info.reason}`);
  check(info.domain === ERROR_DOMAIN, `domain ${info.domain}`);
  check(notFound.findDetails(ErrorInfoSchema)[0]?.reason === info.reason, "Connect's findDetails agrees");
  console.log(`unknown form: ${Code[notFound.code]}, ErrorInfo reason ${info.reason}, domain ${info.domain}`);

  // Past the key's per-minute limit: RATE_LIMITED with a RetryInfo delay.
  const usage = createClient(
    UsageService,
    createGrpcTransport({ baseUrl: args.url, interceptors: [apiKey(limitedKey)] }),
  );
  const maxCalls = Number(args["max-calls"]);
  for (let calls = 1; ; calls++) {
    check(calls <= maxCalls, `no RATE_LIMITED within ${maxCalls} calls`);
    let err: ConnectError;
    try {
      await usage.getUsage({});
      continue;
    } catch (e) {
      err = ConnectError.from(e);
    }
    check(err.code === Code.ResourceExhausted, `code ${Code[err.code]}: ${err.message}`);
    const details = errorDetails(err);
    check(details?.errorInfo?.reason === "RATE_LIMITED", `reason ${details?.errorInfo?.reason}`);
    const delay = details.retryInfo?.retryDelay;
    check(delay, "RetryInfo with a retry delay");
    const seconds = Number(delay.seconds) + delay.nanos / 1e9;
    check(seconds > 0 && seconds <= 3600, `retry delay ${seconds}s`);
    console.log(
      `call ${calls}: RATE_LIMITED, RetryInfo retry_delay ${seconds}s, ` +
        `retry-after ${err.metadata.get("retry-after")}, x-ratelimit-limit ${err.metadata.get("x-ratelimit-limit")}`,
    );
    break;
  }

  console.log("typescript client e2e: ok");
}

main().catch((e) => {
  console.error(`FAILED: ${e instanceof Error ? e.message : e}`);
  process.exit(1);
});
