import datetime

from forms.v1 import common_pb2 as _common_pb2
from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class SortOrder(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SORT_ORDER_UNSPECIFIED: _ClassVar[SortOrder]
    SORT_ORDER_ASC: _ClassVar[SortOrder]
    SORT_ORDER_DESC: _ClassVar[SortOrder]

class ExportFormat(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    EXPORT_FORMAT_UNSPECIFIED: _ClassVar[ExportFormat]
    EXPORT_FORMAT_NDJSON: _ClassVar[ExportFormat]
    EXPORT_FORMAT_CSV: _ClassVar[ExportFormat]

class ResponseStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RESPONSE_STATUS_UNSPECIFIED: _ClassVar[ResponseStatus]
    RESPONSE_STATUS_COMPLETED: _ClassVar[ResponseStatus]
    RESPONSE_STATUS_PARTIAL: _ClassVar[ResponseStatus]
    RESPONSE_STATUS_ALL: _ClassVar[ResponseStatus]
SORT_ORDER_UNSPECIFIED: SortOrder
SORT_ORDER_ASC: SortOrder
SORT_ORDER_DESC: SortOrder
EXPORT_FORMAT_UNSPECIFIED: ExportFormat
EXPORT_FORMAT_NDJSON: ExportFormat
EXPORT_FORMAT_CSV: ExportFormat
RESPONSE_STATUS_UNSPECIFIED: ResponseStatus
RESPONSE_STATUS_COMPLETED: ResponseStatus
RESPONSE_STATUS_PARTIAL: ResponseStatus
RESPONSE_STATUS_ALL: ResponseStatus

class FormResponse(_message.Message):
    __slots__ = ("id", "form_id", "answers", "metadata", "device_type", "browser", "os", "started_at", "submitted_at", "completion_time_seconds", "status", "last_page")
    ID_FIELD_NUMBER: _ClassVar[int]
    FORM_ID_FIELD_NUMBER: _ClassVar[int]
    ANSWERS_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    DEVICE_TYPE_FIELD_NUMBER: _ClassVar[int]
    BROWSER_FIELD_NUMBER: _ClassVar[int]
    OS_FIELD_NUMBER: _ClassVar[int]
    STARTED_AT_FIELD_NUMBER: _ClassVar[int]
    SUBMITTED_AT_FIELD_NUMBER: _ClassVar[int]
    COMPLETION_TIME_SECONDS_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    LAST_PAGE_FIELD_NUMBER: _ClassVar[int]
    id: str
    form_id: str
    answers: _struct_pb2.Struct
    metadata: _struct_pb2.Struct
    device_type: str
    browser: str
    os: str
    started_at: _timestamp_pb2.Timestamp
    submitted_at: _timestamp_pb2.Timestamp
    completion_time_seconds: int
    status: ResponseStatus
    last_page: int
    def __init__(self, id: _Optional[str] = ..., form_id: _Optional[str] = ..., answers: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., device_type: _Optional[str] = ..., browser: _Optional[str] = ..., os: _Optional[str] = ..., started_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., submitted_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., completion_time_seconds: _Optional[int] = ..., status: _Optional[_Union[ResponseStatus, str]] = ..., last_page: _Optional[int] = ...) -> None: ...

class ListResponsesRequest(_message.Message):
    __slots__ = ("form_id", "page", "per_page", "sort", "since", "until", "cursor", "status")
    FORM_ID_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PER_PAGE_FIELD_NUMBER: _ClassVar[int]
    SORT_FIELD_NUMBER: _ClassVar[int]
    SINCE_FIELD_NUMBER: _ClassVar[int]
    UNTIL_FIELD_NUMBER: _ClassVar[int]
    CURSOR_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    form_id: str
    page: int
    per_page: int
    sort: SortOrder
    since: _timestamp_pb2.Timestamp
    until: _timestamp_pb2.Timestamp
    cursor: str
    status: ResponseStatus
    def __init__(self, form_id: _Optional[str] = ..., page: _Optional[int] = ..., per_page: _Optional[int] = ..., sort: _Optional[_Union[SortOrder, str]] = ..., since: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., until: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., cursor: _Optional[str] = ..., status: _Optional[_Union[ResponseStatus, str]] = ...) -> None: ...

class ListResponsesResponse(_message.Message):
    __slots__ = ("responses", "page", "cursor")
    RESPONSES_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    CURSOR_FIELD_NUMBER: _ClassVar[int]
    responses: _containers.RepeatedCompositeFieldContainer[FormResponse]
    page: _common_pb2.PagePagination
    cursor: _common_pb2.CursorPagination
    def __init__(self, responses: _Optional[_Iterable[_Union[FormResponse, _Mapping]]] = ..., page: _Optional[_Union[_common_pb2.PagePagination, _Mapping]] = ..., cursor: _Optional[_Union[_common_pb2.CursorPagination, _Mapping]] = ...) -> None: ...

class GetResponseRequest(_message.Message):
    __slots__ = ("form_id", "id")
    FORM_ID_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    form_id: str
    id: str
    def __init__(self, form_id: _Optional[str] = ..., id: _Optional[str] = ...) -> None: ...

class GetResponseResponse(_message.Message):
    __slots__ = ("response",)
    RESPONSE_FIELD_NUMBER: _ClassVar[int]
    response: FormResponse
    def __init__(self, response: _Optional[_Union[FormResponse, _Mapping]] = ...) -> None: ...

class CreateResponseRequest(_message.Message):
    __slots__ = ("form_id", "answers", "metadata")
    FORM_ID_FIELD_NUMBER: _ClassVar[int]
    ANSWERS_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    form_id: str
    answers: _struct_pb2.Struct
    metadata: _struct_pb2.Struct
    def __init__(self, form_id: _Optional[str] = ..., answers: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class CreateResponseResponse(_message.Message):
    __slots__ = ("response",)
    RESPONSE_FIELD_NUMBER: _ClassVar[int]
    response: FormResponse
    def __init__(self, response: _Optional[_Union[FormResponse, _Mapping]] = ...) -> None: ...

class DeleteResponseRequest(_message.Message):
    __slots__ = ("form_id", "id")
    FORM_ID_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    form_id: str
    id: str
    def __init__(self, form_id: _Optional[str] = ..., id: _Optional[str] = ...) -> None: ...

class DeleteResponseResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetResponseFileRequest(_message.Message):
    __slots__ = ("form_id", "response_id", "file_id")
    FORM_ID_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_ID_FIELD_NUMBER: _ClassVar[int]
    FILE_ID_FIELD_NUMBER: _ClassVar[int]
    form_id: str
    response_id: str
    file_id: str
    def __init__(self, form_id: _Optional[str] = ..., response_id: _Optional[str] = ..., file_id: _Optional[str] = ...) -> None: ...

class GetResponseFileResponse(_message.Message):
    __slots__ = ("file_name", "content_type", "content")
    FILE_NAME_FIELD_NUMBER: _ClassVar[int]
    CONTENT_TYPE_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    file_name: str
    content_type: str
    content: bytes
    def __init__(self, file_name: _Optional[str] = ..., content_type: _Optional[str] = ..., content: _Optional[bytes] = ...) -> None: ...

class ExportResponsesRequest(_message.Message):
    __slots__ = ("form_id", "format", "since", "until", "status")
    FORM_ID_FIELD_NUMBER: _ClassVar[int]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    SINCE_FIELD_NUMBER: _ClassVar[int]
    UNTIL_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    form_id: str
    format: ExportFormat
    since: _timestamp_pb2.Timestamp
    until: _timestamp_pb2.Timestamp
    status: ResponseStatus
    def __init__(self, form_id: _Optional[str] = ..., format: _Optional[_Union[ExportFormat, str]] = ..., since: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., until: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., status: _Optional[_Union[ResponseStatus, str]] = ...) -> None: ...

class ExportResponsesResponse(_message.Message):
    __slots__ = ("data",)
    DATA_FIELD_NUMBER: _ClassVar[int]
    data: bytes
    def __init__(self, data: _Optional[bytes] = ...) -> None: ...
