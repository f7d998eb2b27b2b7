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
    EXPORT_FORMAT_XLSX: _ClassVar[ExportFormat]

class ResponseStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RESPONSE_STATUS_UNSPECIFIED: _ClassVar[ResponseStatus]
    RESPONSE_STATUS_COMPLETED: _ClassVar[ResponseStatus]
    RESPONSE_STATUS_PARTIAL: _ClassVar[ResponseStatus]
    RESPONSE_STATUS_ALL: _ClassVar[ResponseStatus]

class ResponseSource(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RESPONSE_SOURCE_UNSPECIFIED: _ClassVar[ResponseSource]
    RESPONSE_SOURCE_API: _ClassVar[ResponseSource]
    RESPONSE_SOURCE_FORM: _ClassVar[ResponseSource]

class AnswerOperator(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ANSWER_OPERATOR_UNSPECIFIED: _ClassVar[AnswerOperator]
    ANSWER_OPERATOR_EQUALS: _ClassVar[AnswerOperator]
    ANSWER_OPERATOR_ANY_OF: _ClassVar[AnswerOperator]
    ANSWER_OPERATOR_CONTAINS: _ClassVar[AnswerOperator]
    ANSWER_OPERATOR_ANSWERED: _ClassVar[AnswerOperator]
    ANSWER_OPERATOR_NOT_ANSWERED: _ClassVar[AnswerOperator]
    ANSWER_OPERATOR_AT_LEAST: _ClassVar[AnswerOperator]
    ANSWER_OPERATOR_AT_MOST: _ClassVar[AnswerOperator]
    ANSWER_OPERATOR_GREATER_THAN: _ClassVar[AnswerOperator]
    ANSWER_OPERATOR_LESS_THAN: _ClassVar[AnswerOperator]
SORT_ORDER_UNSPECIFIED: SortOrder
SORT_ORDER_ASC: SortOrder
SORT_ORDER_DESC: SortOrder
EXPORT_FORMAT_UNSPECIFIED: ExportFormat
EXPORT_FORMAT_NDJSON: ExportFormat
EXPORT_FORMAT_CSV: ExportFormat
EXPORT_FORMAT_XLSX: ExportFormat
RESPONSE_STATUS_UNSPECIFIED: ResponseStatus
RESPONSE_STATUS_COMPLETED: ResponseStatus
RESPONSE_STATUS_PARTIAL: ResponseStatus
RESPONSE_STATUS_ALL: ResponseStatus
RESPONSE_SOURCE_UNSPECIFIED: ResponseSource
RESPONSE_SOURCE_API: ResponseSource
RESPONSE_SOURCE_FORM: ResponseSource
ANSWER_OPERATOR_UNSPECIFIED: AnswerOperator
ANSWER_OPERATOR_EQUALS: AnswerOperator
ANSWER_OPERATOR_ANY_OF: AnswerOperator
ANSWER_OPERATOR_CONTAINS: AnswerOperator
ANSWER_OPERATOR_ANSWERED: AnswerOperator
ANSWER_OPERATOR_NOT_ANSWERED: AnswerOperator
ANSWER_OPERATOR_AT_LEAST: AnswerOperator
ANSWER_OPERATOR_AT_MOST: AnswerOperator
ANSWER_OPERATOR_GREATER_THAN: AnswerOperator
ANSWER_OPERATOR_LESS_THAN: AnswerOperator

class FormResponse(_message.Message):
    __slots__ = ("id", "form_id", "answers", "metadata", "device_type", "browser", "os", "started_at", "submitted_at", "completion_time_seconds", "status", "last_page", "language")
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
    LANGUAGE_FIELD_NUMBER: _ClassVar[int]
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
    language: str
    def __init__(self, id: _Optional[str] = ..., form_id: _Optional[str] = ..., answers: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., device_type: _Optional[str] = ..., browser: _Optional[str] = ..., os: _Optional[str] = ..., started_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., submitted_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., completion_time_seconds: _Optional[int] = ..., status: _Optional[_Union[ResponseStatus, str]] = ..., last_page: _Optional[int] = ..., language: _Optional[str] = ...) -> None: ...

class ResponseFilter(_message.Message):
    __slots__ = ("q", "answers", "source", "device_type", "browser", "os", "ids", "language")
    Q_FIELD_NUMBER: _ClassVar[int]
    ANSWERS_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    DEVICE_TYPE_FIELD_NUMBER: _ClassVar[int]
    BROWSER_FIELD_NUMBER: _ClassVar[int]
    OS_FIELD_NUMBER: _ClassVar[int]
    IDS_FIELD_NUMBER: _ClassVar[int]
    LANGUAGE_FIELD_NUMBER: _ClassVar[int]
    q: str
    answers: _containers.RepeatedCompositeFieldContainer[AnswerFilter]
    source: ResponseSource
    device_type: str
    browser: str
    os: str
    ids: _containers.RepeatedScalarFieldContainer[str]
    language: str
    def __init__(self, q: _Optional[str] = ..., answers: _Optional[_Iterable[_Union[AnswerFilter, _Mapping]]] = ..., source: _Optional[_Union[ResponseSource, str]] = ..., device_type: _Optional[str] = ..., browser: _Optional[str] = ..., os: _Optional[str] = ..., ids: _Optional[_Iterable[str]] = ..., language: _Optional[str] = ...) -> None: ...

class AnswerFilter(_message.Message):
    __slots__ = ("field", "operator", "values")
    FIELD_FIELD_NUMBER: _ClassVar[int]
    OPERATOR_FIELD_NUMBER: _ClassVar[int]
    VALUES_FIELD_NUMBER: _ClassVar[int]
    field: str
    operator: AnswerOperator
    values: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, field: _Optional[str] = ..., operator: _Optional[_Union[AnswerOperator, str]] = ..., values: _Optional[_Iterable[str]] = ...) -> None: ...

class ListResponsesRequest(_message.Message):
    __slots__ = ("form_id", "page", "per_page", "sort", "since", "until", "cursor", "status", "filter")
    FORM_ID_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PER_PAGE_FIELD_NUMBER: _ClassVar[int]
    SORT_FIELD_NUMBER: _ClassVar[int]
    SINCE_FIELD_NUMBER: _ClassVar[int]
    UNTIL_FIELD_NUMBER: _ClassVar[int]
    CURSOR_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    FILTER_FIELD_NUMBER: _ClassVar[int]
    form_id: str
    page: int
    per_page: int
    sort: SortOrder
    since: _timestamp_pb2.Timestamp
    until: _timestamp_pb2.Timestamp
    cursor: str
    status: ResponseStatus
    filter: ResponseFilter
    def __init__(self, form_id: _Optional[str] = ..., page: _Optional[int] = ..., per_page: _Optional[int] = ..., sort: _Optional[_Union[SortOrder, str]] = ..., since: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., until: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., cursor: _Optional[str] = ..., status: _Optional[_Union[ResponseStatus, str]] = ..., filter: _Optional[_Union[ResponseFilter, _Mapping]] = ...) -> None: ...

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
    __slots__ = ("form_id", "format", "since", "until", "status", "filter")
    FORM_ID_FIELD_NUMBER: _ClassVar[int]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    SINCE_FIELD_NUMBER: _ClassVar[int]
    UNTIL_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    FILTER_FIELD_NUMBER: _ClassVar[int]
    form_id: str
    format: ExportFormat
    since: _timestamp_pb2.Timestamp
    until: _timestamp_pb2.Timestamp
    status: ResponseStatus
    filter: ResponseFilter
    def __init__(self, form_id: _Optional[str] = ..., format: _Optional[_Union[ExportFormat, str]] = ..., since: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., until: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., status: _Optional[_Union[ResponseStatus, str]] = ..., filter: _Optional[_Union[ResponseFilter, _Mapping]] = ...) -> None: ...

class ExportResponsesResponse(_message.Message):
    __slots__ = ("data",)
    DATA_FIELD_NUMBER: _ClassVar[int]
    data: bytes
    def __init__(self, data: _Optional[bytes] = ...) -> None: ...

class GetFormSummaryRequest(_message.Message):
    __slots__ = ("form_id", "since", "until", "filter")
    FORM_ID_FIELD_NUMBER: _ClassVar[int]
    SINCE_FIELD_NUMBER: _ClassVar[int]
    UNTIL_FIELD_NUMBER: _ClassVar[int]
    FILTER_FIELD_NUMBER: _ClassVar[int]
    form_id: str
    since: _timestamp_pb2.Timestamp
    until: _timestamp_pb2.Timestamp
    filter: ResponseFilter
    def __init__(self, form_id: _Optional[str] = ..., since: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., until: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., filter: _Optional[_Union[ResponseFilter, _Mapping]] = ...) -> None: ...

class GetFormSummaryResponse(_message.Message):
    __slots__ = ("summary",)
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    summary: FormSummary
    def __init__(self, summary: _Optional[_Union[FormSummary, _Mapping]] = ...) -> None: ...

class FormSummary(_message.Message):
    __slots__ = ("counts", "completion_time", "device_types", "browsers", "operating_systems", "fields", "pages", "languages")
    COUNTS_FIELD_NUMBER: _ClassVar[int]
    COMPLETION_TIME_FIELD_NUMBER: _ClassVar[int]
    DEVICE_TYPES_FIELD_NUMBER: _ClassVar[int]
    BROWSERS_FIELD_NUMBER: _ClassVar[int]
    OPERATING_SYSTEMS_FIELD_NUMBER: _ClassVar[int]
    FIELDS_FIELD_NUMBER: _ClassVar[int]
    PAGES_FIELD_NUMBER: _ClassVar[int]
    LANGUAGES_FIELD_NUMBER: _ClassVar[int]
    counts: SummaryCounts
    completion_time: CompletionTime
    device_types: _containers.RepeatedCompositeFieldContainer[ValueCount]
    browsers: _containers.RepeatedCompositeFieldContainer[ValueCount]
    operating_systems: _containers.RepeatedCompositeFieldContainer[ValueCount]
    fields: _containers.RepeatedCompositeFieldContainer[FieldSummary]
    pages: _containers.RepeatedCompositeFieldContainer[PageReach]
    languages: _containers.RepeatedCompositeFieldContainer[ValueCount]
    def __init__(self, counts: _Optional[_Union[SummaryCounts, _Mapping]] = ..., completion_time: _Optional[_Union[CompletionTime, _Mapping]] = ..., device_types: _Optional[_Iterable[_Union[ValueCount, _Mapping]]] = ..., browsers: _Optional[_Iterable[_Union[ValueCount, _Mapping]]] = ..., operating_systems: _Optional[_Iterable[_Union[ValueCount, _Mapping]]] = ..., fields: _Optional[_Iterable[_Union[FieldSummary, _Mapping]]] = ..., pages: _Optional[_Iterable[_Union[PageReach, _Mapping]]] = ..., languages: _Optional[_Iterable[_Union[ValueCount, _Mapping]]] = ...) -> None: ...

class SummaryCounts(_message.Message):
    __slots__ = ("completed", "partial", "completion_rate", "per_day", "per_hour")
    COMPLETED_FIELD_NUMBER: _ClassVar[int]
    PARTIAL_FIELD_NUMBER: _ClassVar[int]
    COMPLETION_RATE_FIELD_NUMBER: _ClassVar[int]
    PER_DAY_FIELD_NUMBER: _ClassVar[int]
    PER_HOUR_FIELD_NUMBER: _ClassVar[int]
    completed: int
    partial: int
    completion_rate: float
    per_day: _containers.RepeatedCompositeFieldContainer[DayCount]
    per_hour: _containers.RepeatedCompositeFieldContainer[HourCount]
    def __init__(self, completed: _Optional[int] = ..., partial: _Optional[int] = ..., completion_rate: _Optional[float] = ..., per_day: _Optional[_Iterable[_Union[DayCount, _Mapping]]] = ..., per_hour: _Optional[_Iterable[_Union[HourCount, _Mapping]]] = ...) -> None: ...

class DayCount(_message.Message):
    __slots__ = ("date", "completed", "partial")
    DATE_FIELD_NUMBER: _ClassVar[int]
    COMPLETED_FIELD_NUMBER: _ClassVar[int]
    PARTIAL_FIELD_NUMBER: _ClassVar[int]
    date: str
    completed: int
    partial: int
    def __init__(self, date: _Optional[str] = ..., completed: _Optional[int] = ..., partial: _Optional[int] = ...) -> None: ...

class HourCount(_message.Message):
    __slots__ = ("hour", "completed", "partial")
    HOUR_FIELD_NUMBER: _ClassVar[int]
    COMPLETED_FIELD_NUMBER: _ClassVar[int]
    PARTIAL_FIELD_NUMBER: _ClassVar[int]
    hour: _timestamp_pb2.Timestamp
    completed: int
    partial: int
    def __init__(self, hour: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., completed: _Optional[int] = ..., partial: _Optional[int] = ...) -> None: ...

class CompletionTime(_message.Message):
    __slots__ = ("count", "median_seconds", "p90_seconds")
    COUNT_FIELD_NUMBER: _ClassVar[int]
    MEDIAN_SECONDS_FIELD_NUMBER: _ClassVar[int]
    P90_SECONDS_FIELD_NUMBER: _ClassVar[int]
    count: int
    median_seconds: float
    p90_seconds: float
    def __init__(self, count: _Optional[int] = ..., median_seconds: _Optional[float] = ..., p90_seconds: _Optional[float] = ...) -> None: ...

class ValueCount(_message.Message):
    __slots__ = ("value", "count")
    VALUE_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    value: str
    count: int
    def __init__(self, value: _Optional[str] = ..., count: _Optional[int] = ...) -> None: ...

class FieldSummary(_message.Message):
    __slots__ = ("field_id", "type", "label", "answered", "choice", "scale", "number", "date", "checkbox", "text")
    FIELD_ID_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    ANSWERED_FIELD_NUMBER: _ClassVar[int]
    CHOICE_FIELD_NUMBER: _ClassVar[int]
    SCALE_FIELD_NUMBER: _ClassVar[int]
    NUMBER_FIELD_NUMBER: _ClassVar[int]
    DATE_FIELD_NUMBER: _ClassVar[int]
    CHECKBOX_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    field_id: str
    type: str
    label: str
    answered: int
    choice: ChoiceSummary
    scale: ScaleSummary
    number: NumberSummary
    date: DateSummary
    checkbox: CheckboxSummary
    text: TextSummary
    def __init__(self, field_id: _Optional[str] = ..., type: _Optional[str] = ..., label: _Optional[str] = ..., answered: _Optional[int] = ..., choice: _Optional[_Union[ChoiceSummary, _Mapping]] = ..., scale: _Optional[_Union[ScaleSummary, _Mapping]] = ..., number: _Optional[_Union[NumberSummary, _Mapping]] = ..., date: _Optional[_Union[DateSummary, _Mapping]] = ..., checkbox: _Optional[_Union[CheckboxSummary, _Mapping]] = ..., text: _Optional[_Union[TextSummary, _Mapping]] = ...) -> None: ...

class ChoiceSummary(_message.Message):
    __slots__ = ("options", "other")
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    OTHER_FIELD_NUMBER: _ClassVar[int]
    options: _containers.RepeatedCompositeFieldContainer[OptionCount]
    other: int
    def __init__(self, options: _Optional[_Iterable[_Union[OptionCount, _Mapping]]] = ..., other: _Optional[int] = ...) -> None: ...

class OptionCount(_message.Message):
    __slots__ = ("option_id", "label", "count")
    OPTION_ID_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    option_id: str
    label: str
    count: int
    def __init__(self, option_id: _Optional[str] = ..., label: _Optional[str] = ..., count: _Optional[int] = ...) -> None: ...

class ScaleSummary(_message.Message):
    __slots__ = ("average", "distribution", "nps")
    AVERAGE_FIELD_NUMBER: _ClassVar[int]
    DISTRIBUTION_FIELD_NUMBER: _ClassVar[int]
    NPS_FIELD_NUMBER: _ClassVar[int]
    average: float
    distribution: _containers.RepeatedCompositeFieldContainer[ScaleCount]
    nps: float
    def __init__(self, average: _Optional[float] = ..., distribution: _Optional[_Iterable[_Union[ScaleCount, _Mapping]]] = ..., nps: _Optional[float] = ...) -> None: ...

class ScaleCount(_message.Message):
    __slots__ = ("value", "count")
    VALUE_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    value: int
    count: int
    def __init__(self, value: _Optional[int] = ..., count: _Optional[int] = ...) -> None: ...

class NumberSummary(_message.Message):
    __slots__ = ("min", "max", "average")
    MIN_FIELD_NUMBER: _ClassVar[int]
    MAX_FIELD_NUMBER: _ClassVar[int]
    AVERAGE_FIELD_NUMBER: _ClassVar[int]
    min: float
    max: float
    average: float
    def __init__(self, min: _Optional[float] = ..., max: _Optional[float] = ..., average: _Optional[float] = ...) -> None: ...

class DateSummary(_message.Message):
    __slots__ = ("earliest", "latest")
    EARLIEST_FIELD_NUMBER: _ClassVar[int]
    LATEST_FIELD_NUMBER: _ClassVar[int]
    earliest: str
    latest: str
    def __init__(self, earliest: _Optional[str] = ..., latest: _Optional[str] = ...) -> None: ...

class CheckboxSummary(_message.Message):
    __slots__ = ("ticked",)
    TICKED_FIELD_NUMBER: _ClassVar[int]
    ticked: int
    def __init__(self, ticked: _Optional[int] = ...) -> None: ...

class TextSummary(_message.Message):
    __slots__ = ("newest",)
    NEWEST_FIELD_NUMBER: _ClassVar[int]
    newest: _containers.RepeatedCompositeFieldContainer[TextAnswer]
    def __init__(self, newest: _Optional[_Iterable[_Union[TextAnswer, _Mapping]]] = ...) -> None: ...

class TextAnswer(_message.Message):
    __slots__ = ("response_id", "submitted_at", "value")
    RESPONSE_ID_FIELD_NUMBER: _ClassVar[int]
    SUBMITTED_AT_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    response_id: str
    submitted_at: _timestamp_pb2.Timestamp
    value: str
    def __init__(self, response_id: _Optional[str] = ..., submitted_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., value: _Optional[str] = ...) -> None: ...

class PageReach(_message.Message):
    __slots__ = ("page", "title", "reached")
    PAGE_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    REACHED_FIELD_NUMBER: _ClassVar[int]
    page: int
    title: str
    reached: int
    def __init__(self, page: _Optional[int] = ..., title: _Optional[str] = ..., reached: _Optional[int] = ...) -> None: ...

class EraseRespondentRequest(_message.Message):
    __slots__ = ("value", "dry_run")
    VALUE_FIELD_NUMBER: _ClassVar[int]
    DRY_RUN_FIELD_NUMBER: _ClassVar[int]
    value: str
    dry_run: bool
    def __init__(self, value: _Optional[str] = ..., dry_run: _Optional[bool] = ...) -> None: ...

class ErasedResponse(_message.Message):
    __slots__ = ("id", "form_id", "form_title", "submitted_at", "status")
    ID_FIELD_NUMBER: _ClassVar[int]
    FORM_ID_FIELD_NUMBER: _ClassVar[int]
    FORM_TITLE_FIELD_NUMBER: _ClassVar[int]
    SUBMITTED_AT_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    id: str
    form_id: str
    form_title: str
    submitted_at: _timestamp_pb2.Timestamp
    status: ResponseStatus
    def __init__(self, id: _Optional[str] = ..., form_id: _Optional[str] = ..., form_title: _Optional[str] = ..., submitted_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., status: _Optional[_Union[ResponseStatus, str]] = ...) -> None: ...

class EraseRespondentResponse(_message.Message):
    __slots__ = ("matches", "erased", "truncated")
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    ERASED_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    matches: _containers.RepeatedCompositeFieldContainer[ErasedResponse]
    erased: bool
    truncated: bool
    def __init__(self, matches: _Optional[_Iterable[_Union[ErasedResponse, _Mapping]]] = ..., erased: _Optional[bool] = ..., truncated: _Optional[bool] = ...) -> None: ...
