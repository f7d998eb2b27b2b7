from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Optional as _Optional

DESCRIPTOR: _descriptor.FileDescriptor

class ErrorReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ERROR_REASON_UNSPECIFIED: _ClassVar[ErrorReason]
    ERROR_REASON_UNAUTHENTICATED: _ClassVar[ErrorReason]
    ERROR_REASON_KEY_INVALID: _ClassVar[ErrorReason]
    ERROR_REASON_INSUFFICIENT_SCOPE: _ClassVar[ErrorReason]
    ERROR_REASON_PLAN_REQUIRED: _ClassVar[ErrorReason]
    ERROR_REASON_RESPONSE_LIMIT_REACHED: _ClassVar[ErrorReason]
    ERROR_REASON_RATE_LIMITED: _ClassVar[ErrorReason]
    ERROR_REASON_NOT_FOUND: _ClassVar[ErrorReason]
    ERROR_REASON_VALIDATION_ERROR: _ClassVar[ErrorReason]
    ERROR_REASON_CSRF_FAILED: _ClassVar[ErrorReason]
    ERROR_REASON_FORM_NOT_PUBLISHED: _ClassVar[ErrorReason]
    ERROR_REASON_FORM_CLOSED: _ClassVar[ErrorReason]
    ERROR_REASON_ADMIN_DENIED: _ClassVar[ErrorReason]
    ERROR_REASON_INTERNAL: _ClassVar[ErrorReason]
    ERROR_REASON_UNSUPPORTED_MEDIA_TYPE: _ClassVar[ErrorReason]
    ERROR_REASON_METHOD_NOT_ALLOWED: _ClassVar[ErrorReason]
    ERROR_REASON_PAYLOAD_TOO_LARGE: _ClassVar[ErrorReason]
    ERROR_REASON_SERVICE_UNAVAILABLE: _ClassVar[ErrorReason]
    ERROR_REASON_REQUEST_TIMEOUT: _ClassVar[ErrorReason]
    ERROR_REASON_ORIGIN_NOT_ALLOWED: _ClassVar[ErrorReason]
ERROR_REASON_UNSPECIFIED: ErrorReason
ERROR_REASON_UNAUTHENTICATED: ErrorReason
ERROR_REASON_KEY_INVALID: ErrorReason
ERROR_REASON_INSUFFICIENT_SCOPE: ErrorReason
ERROR_REASON_PLAN_REQUIRED: ErrorReason
ERROR_REASON_RESPONSE_LIMIT_REACHED: ErrorReason
ERROR_REASON_RATE_LIMITED: ErrorReason
ERROR_REASON_NOT_FOUND: ErrorReason
ERROR_REASON_VALIDATION_ERROR: ErrorReason
ERROR_REASON_CSRF_FAILED: ErrorReason
ERROR_REASON_FORM_NOT_PUBLISHED: ErrorReason
ERROR_REASON_FORM_CLOSED: ErrorReason
ERROR_REASON_ADMIN_DENIED: ErrorReason
ERROR_REASON_INTERNAL: ErrorReason
ERROR_REASON_UNSUPPORTED_MEDIA_TYPE: ErrorReason
ERROR_REASON_METHOD_NOT_ALLOWED: ErrorReason
ERROR_REASON_PAYLOAD_TOO_LARGE: ErrorReason
ERROR_REASON_SERVICE_UNAVAILABLE: ErrorReason
ERROR_REASON_REQUEST_TIMEOUT: ErrorReason
ERROR_REASON_ORIGIN_NOT_ALLOWED: ErrorReason

class PagePagination(_message.Message):
    __slots__ = ("total", "page", "per_page", "total_pages")
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PER_PAGE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_PAGES_FIELD_NUMBER: _ClassVar[int]
    total: int
    page: int
    per_page: int
    total_pages: int
    def __init__(self, total: _Optional[int] = ..., page: _Optional[int] = ..., per_page: _Optional[int] = ..., total_pages: _Optional[int] = ...) -> None: ...

class CursorPagination(_message.Message):
    __slots__ = ("per_page", "next_cursor")
    PER_PAGE_FIELD_NUMBER: _ClassVar[int]
    NEXT_CURSOR_FIELD_NUMBER: _ClassVar[int]
    per_page: int
    next_cursor: str
    def __init__(self, per_page: _Optional[int] = ..., next_cursor: _Optional[str] = ...) -> None: ...
