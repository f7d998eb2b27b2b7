from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class GetUsageRequest(_message.Message):
    __slots__ = ("days",)
    DAYS_FIELD_NUMBER: _ClassVar[int]
    days: int
    def __init__(self, days: _Optional[int] = ...) -> None: ...

class GetUsageResponse(_message.Message):
    __slots__ = ("usage",)
    USAGE_FIELD_NUMBER: _ClassVar[int]
    usage: Usage
    def __init__(self, usage: _Optional[_Union[Usage, _Mapping]] = ...) -> None: ...

class Usage(_message.Message):
    __slots__ = ("key_id", "period_days", "rate_limit_per_minute", "total_requests", "total_errors", "daily")
    KEY_ID_FIELD_NUMBER: _ClassVar[int]
    PERIOD_DAYS_FIELD_NUMBER: _ClassVar[int]
    RATE_LIMIT_PER_MINUTE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_REQUESTS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_ERRORS_FIELD_NUMBER: _ClassVar[int]
    DAILY_FIELD_NUMBER: _ClassVar[int]
    key_id: str
    period_days: int
    rate_limit_per_minute: int
    total_requests: int
    total_errors: int
    daily: _containers.RepeatedCompositeFieldContainer[DailyUsage]
    def __init__(self, key_id: _Optional[str] = ..., period_days: _Optional[int] = ..., rate_limit_per_minute: _Optional[int] = ..., total_requests: _Optional[int] = ..., total_errors: _Optional[int] = ..., daily: _Optional[_Iterable[_Union[DailyUsage, _Mapping]]] = ...) -> None: ...

class DailyUsage(_message.Message):
    __slots__ = ("day", "request_count", "error_count")
    DAY_FIELD_NUMBER: _ClassVar[int]
    REQUEST_COUNT_FIELD_NUMBER: _ClassVar[int]
    ERROR_COUNT_FIELD_NUMBER: _ClassVar[int]
    day: str
    request_count: int
    error_count: int
    def __init__(self, day: _Optional[str] = ..., request_count: _Optional[int] = ..., error_count: _Optional[int] = ...) -> None: ...
