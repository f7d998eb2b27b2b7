from forms.v1 import common_pb2 as _common_pb2
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class RejectRequestRequest(_message.Message):
    __slots__ = ("reason", "message", "error_reason")
    REASON_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    ERROR_REASON_FIELD_NUMBER: _ClassVar[int]
    reason: str
    message: str
    error_reason: _common_pb2.ErrorReason
    def __init__(self, reason: _Optional[str] = ..., message: _Optional[str] = ..., error_reason: _Optional[_Union[_common_pb2.ErrorReason, str]] = ...) -> None: ...

class RejectRequestResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...
