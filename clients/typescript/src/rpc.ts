// The three google.rpc messages that formsd puts in the `grpc-status-details-bin` trailer
// of an error: Status (the trailer itself), ErrorInfo (the error reason: NOT_FOUND,
// RATE_LIMITED, ...) and RetryInfo (when to retry a RATE_LIMITED call).
//
// No npm package ships google.rpc for protobuf-es v2, so their schemas are described
// here field by field (names and numbers as in google/rpc/status.proto and
// google/rpc/error_details.proto) and built at run time by @bufbuild/protobuf.

import { create, createFileRegistry, type Message } from "@bufbuild/protobuf";
import type { GenMessage } from "@bufbuild/protobuf/codegenv2";
import {
  type Any,
  anyUnpack,
  type Duration,
  FieldDescriptorProto_Label as Label,
  FieldDescriptorProto_Type as Type,
  FileDescriptorProtoSchema,
  file_google_protobuf_any,
  file_google_protobuf_duration,
} from "@bufbuild/protobuf/wkt";
import { ConnectError, decodeBinaryHeader } from "@connectrpc/connect";

/** google.rpc.Status: the payload of the `grpc-status-details-bin` trailer. */
export type Status = Message<"google.rpc.Status"> & {
  /** The gRPC status code. */
  code: number;
  /** The error message. */
  message: string;
  /** Error details, such as ErrorInfo and RetryInfo. */
  details: Any[];
};

/** google.rpc.ErrorInfo: why a call failed. */
export type ErrorInfo = Message<"google.rpc.ErrorInfo"> & {
  /** The error code of the REST API, e.g. NOT_FOUND, RATE_LIMITED. */
  reason: string;
  /** "forms.v1" for errors of formsd. */
  domain: string;
  /** Further facts about the error. */
  metadata: { [key: string]: string };
};

/** google.rpc.RetryInfo: how long to wait before retrying. */
export type RetryInfo = Message<"google.rpc.RetryInfo"> & {
  /** The delay. */
  retryDelay?: Duration;
};

const field = (name: string, number: number, type: Type, extra: object = {}) => ({
  name,
  number,
  type,
  label: Label.OPTIONAL,
  ...extra,
});

const file = createFileRegistry(
  create(FileDescriptorProtoSchema, {
    name: "forms_client/google_rpc.proto",
    package: "google.rpc",
    syntax: "proto3",
    dependency: ["google/protobuf/any.proto", "google/protobuf/duration.proto"],
    messageType: [
      {
        name: "Status",
        field: [
          field("code", 1, Type.INT32),
          field("message", 2, Type.STRING),
          field("details", 3, Type.MESSAGE, {
            typeName: ".google.protobuf.Any",
            label: Label.REPEATED,
          }),
        ],
      },
      {
        name: "ErrorInfo",
        field: [
          field("reason", 1, Type.STRING),
          field("domain", 2, Type.STRING),
          field("metadata", 3, Type.MESSAGE, {
            typeName: ".google.rpc.ErrorInfo.MetadataEntry",
            label: Label.REPEATED,
          }),
        ],
        nestedType: [
          {
            name: "MetadataEntry",
            field: [field("key", 1, Type.STRING), field("value", 2, Type.STRING)],
            options: { mapEntry: true },
          },
        ],
      },
      {
        name: "RetryInfo",
        field: [
          field("retry_delay", 1, Type.MESSAGE, {
            typeName: ".google.protobuf.Duration",
            jsonName: "retryDelay",
          }),
        ],
      },
    ],
  }),
  (name) =>
    ({
      "google/protobuf/any.proto": file_google_protobuf_any,
      "google/protobuf/duration.proto": file_google_protobuf_duration,
    })[name],
);

function schema<T extends Message>(typeName: string): GenMessage<T> {
  const desc = file.getMessage(typeName);
  if (desc === undefined) throw new Error(`${typeName} missing`);
  return desc as GenMessage<T>;
}

export const StatusSchema = schema<Status>("google.rpc.Status");
export const ErrorInfoSchema = schema<ErrorInfo>("google.rpc.ErrorInfo");
export const RetryInfoSchema = schema<RetryInfo>("google.rpc.RetryInfo");

/** What formsd says about a failed call. */
export type ErrorDetails = {
  /** The decoded `grpc-status-details-bin` trailer. */
  status: Status;
  /** Its ErrorInfo, if any. */
  errorInfo?: ErrorInfo;
  /** Its RetryInfo, if any (RATE_LIMITED errors carry one). */
  retryInfo?: RetryInfo;
};

/**
 * Decodes the `grpc-status-details-bin` trailer of a failed call. (Connect parses the
 * same trailer: `err.findDetails(ErrorInfoSchema)` gives the same ErrorInfo.)
 */
export function errorDetails(err: ConnectError): ErrorDetails | undefined {
  const trailer = err.metadata.get("grpc-status-details-bin");
  if (trailer === null) return undefined;
  const status = decodeBinaryHeader(trailer, StatusSchema);
  const unpack = <T extends Message>(desc: GenMessage<T>) =>
    status.details.map((any) => anyUnpack(any, desc)).find((m) => m !== undefined);
  return { status, errorInfo: unpack(ErrorInfoSchema), retryInfo: unpack(RetryInfoSchema) };
}
