#!/usr/bin/env python3
"""End-to-end check of the generated Python client against a running formsd.

    python3 clients/python/e2e.py --url http://127.0.0.1:50051 --key fsk_... [--limited-key fsk_...]

(or FORMS_GRPC_URL, FORMS_API_KEY, FORMS_LIMITED_API_KEY in the environment). The key
needs the read and write scopes. The rate-limit step sends GetUsage calls with the
limited key (default: the main key) until the server answers RATE_LIMITED, at most
--max-calls times: give it a key whose plan has a small limit (e.g. a pro key on a
server started with `--pro-rate-limit 5`). Prints each step; exits non-zero on the first
failed check.
"""

import argparse
import os
import pathlib
import sys
import uuid

# The generated package `forms.v1` lives in src/ beside this script.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent / "src"))

import grpc  # noqa: E402
from google.protobuf import field_mask_pb2, struct_pb2  # noqa: E402
from google.rpc import error_details_pb2  # noqa: E402
from grpc_status import rpc_status  # noqa: E402

from forms.v1 import (  # noqa: E402
    forms_pb2,
    forms_pb2_grpc,
    responses_pb2,
    responses_pb2_grpc,
    usage_pb2,
    usage_pb2_grpc,
)

ERROR_DOMAIN = "forms.v1"


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def error_details(error):
    """The ErrorInfo and RetryInfo (or None) of a failed call, decoded from its
    `grpc-status-details-bin` trailer (a google.rpc.Status)."""
    status = rpc_status.from_call(error)
    check(status is not None, f"no grpc-status-details-bin trailer on {error!r}")
    info, retry = None, None
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
        elif detail.Is(error_details_pb2.RetryInfo.DESCRIPTOR):
            retry = error_details_pb2.RetryInfo()
            detail.Unpack(retry)
    check(info is not None, f"no google.rpc.ErrorInfo in {status}")
    return info, retry


def struct(values):
    s = struct_pb2.Struct()
    s.update(values)
    return s


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default=os.environ.get("FORMS_GRPC_URL", "http://127.0.0.1:50051"))
    parser.add_argument("--key", default=os.environ.get("FORMS_API_KEY"))
    parser.add_argument("--limited-key", default=os.environ.get("FORMS_LIMITED_API_KEY"))
    parser.add_argument("--max-calls", type=int, default=50)
    args = parser.parse_args()
    if not args.key:
        parser.error("an API key is needed: --key or FORMS_API_KEY")
    target = args.url.removeprefix("http://")
    check("://" not in target, f"plain-text http:// URL expected, got {args.url}")
    auth = (("x-api-key", args.key),)

    with grpc.insecure_channel(target) as channel:
        forms = forms_pb2_grpc.FormsServiceStub(channel)
        responses = responses_pb2_grpc.ResponsesServiceStub(channel)
        usage = usage_pb2_grpc.UsageServiceStub(channel)

        # A form with two fields, in status draft.
        form = forms.CreateForm(
            forms_pb2.CreateFormRequest(
                title="Python client e2e",
                description="made by clients/python/e2e.py",
                fields=[
                    forms_pb2.FormField(type="short_text", label="Name", required=True),
                    forms_pb2.FormField(type="email", label="Email", required=False),
                ],
            ),
            metadata=auth,
        ).form
        check(form.status == forms_pb2.FORM_STATUS_DRAFT, f"new form status {form.status}")
        check(len(form.fields) == 2 and all(f.id for f in form.fields), "field ids assigned")
        name_id, email_id = (f.id for f in form.fields)
        print(f"created form {form.id} with fields {name_id}, {email_id}")

        # Published through UpdateForm with a field mask.
        published = forms.UpdateForm(
            forms_pb2.UpdateFormRequest(
                id=form.id,
                form=forms_pb2.Form(status=forms_pb2.FORM_STATUS_PUBLISHED),
                update_mask=field_mask_pb2.FieldMask(paths=["status"]),
            ),
            metadata=auth,
        ).form
        check(published.status == forms_pb2.FORM_STATUS_PUBLISHED, "published")
        check(published.HasField("published_at"), "published_at set")
        check(published.title == form.title, "title kept by the partial update")
        print("published it")

        # A response with an idempotency key; the same call again replays it.
        request = responses_pb2.CreateResponseRequest(
            form_id=form.id,
            answers=struct({name_id: "Ada Lovelace", email_id: "ada@example.com"}),
        )
        idem = (("idempotency-key", f"py-{uuid.uuid4()}"),)
        first, call = responses.CreateResponse.with_call(request, metadata=auth + idem)
        check(dict(call.initial_metadata()).get("idempotent-replayed") != "true", "first is no replay")
        again, call = responses.CreateResponse.with_call(request, metadata=auth + idem)
        replayed = dict(call.initial_metadata()).get("idempotent-replayed")
        check(replayed == "true", f"idempotent-replayed on the repeat: {replayed!r}")
        check(again.response.id == first.response.id, "the repeat replays the same response")
        check(first.response.answers[name_id] == "Ada Lovelace", "answers stored")
        check(first.response.metadata["source"] == "api", "metadata.source is api")
        print(f"created response {first.response.id}; the repeat replayed it")

        for name in ("Grace Hopper", "Edsger Dijkstra"):
            responses.CreateResponse(
                responses_pb2.CreateResponseRequest(form_id=form.id, answers=struct({name_id: name})),
                metadata=auth,
            )

        # Three responses, listed by cursor two at a time: two pages.
        page1 = responses.ListResponses(
            responses_pb2.ListResponsesRequest(
                form_id=form.id, per_page=2, sort=responses_pb2.SORT_ORDER_ASC, cursor=""
            ),
            metadata=auth,
        )
        check(page1.WhichOneof("pagination") == "cursor", "cursor mode")
        check(len(page1.responses) == 2, f"first page has 2, got {len(page1.responses)}")
        check(page1.cursor.HasField("next_cursor"), "first page has a next cursor")
        page2 = responses.ListResponses(
            responses_pb2.ListResponsesRequest(
                form_id=form.id, per_page=2, sort=responses_pb2.SORT_ORDER_ASC, cursor=page1.cursor.next_cursor
            ),
            metadata=auth,
        )
        check(len(page2.responses) == 1, f"second page has 1, got {len(page2.responses)}")
        check(not page2.cursor.HasField("next_cursor"), "no cursor after the last page")
        names = [r.answers[name_id] for r in [*page1.responses, *page2.responses]]
        check(names == ["Ada Lovelace", "Grace Hopper", "Edsger Dijkstra"], f"cursor order: {names}")
        print(f"listed {len(names)} responses in two cursor pages")

        # An unknown form: NOT_FOUND, with ErrorInfo in the status details trailer.
        try:
            forms.GetForm(forms_pb2.GetFormRequest(id=str(uuid.uuid4())), metadata=auth)
            raise AssertionError("GetForm of an unknown id succeeded")
        except grpc.RpcError as e:
            check(e.code() == grpc.StatusCode.NOT_FOUND, f"code {e.code()}")
            info, _ = error_details(e)
            check(info.reason == "NOT_FOUND", f"reason {info.reason}")
            check(info.domain == ERROR_DOMAIN, f"domain {info.domain}")
            print(f"unknown form: {e.code().name}, ErrorInfo reason {info.reason}, domain {info.domain}")

        # Past the key's per-minute limit: RATE_LIMITED with a RetryInfo delay.
        limited = (("x-api-key", args.limited_key or args.key),)
        for calls in range(1, args.max_calls + 1):
            try:
                usage.GetUsage(usage_pb2.GetUsageRequest(), metadata=limited)
            except grpc.RpcError as e:
                check(e.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, f"code {e.code()}: {e.details()}")
                info, retry = error_details(e)
                check(info.reason == "RATE_LIMITED", f"reason {info.reason}")
                check(retry is not None, "RetryInfo present")
                delay = retry.retry_delay.ToTimedelta().total_seconds()
                check(0 < delay <= 3600, f"retry delay {delay}s")
                trailers = dict(e.trailing_metadata())
                print(
                    f"call {calls}: RATE_LIMITED, RetryInfo retry_delay {delay:g}s, "
                    f"retry-after {trailers.get('retry-after')}, x-ratelimit-limit {trailers.get('x-ratelimit-limit')}"
                )
                break
        else:
            raise AssertionError(f"no RATE_LIMITED within {args.max_calls} calls")

    print("python client e2e: ok")


if __name__ == "__main__":
    try:
        main()
    except AssertionError as e:
        print(f"FAILED: {e}", file=sys.stderr)
        sys.exit(1)
