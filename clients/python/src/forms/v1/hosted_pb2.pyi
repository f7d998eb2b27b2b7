from forms.v1 import forms_pb2 as _forms_pb2
from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class GetHostedFormRequest(_message.Message):
    __slots__ = ("short_id", "csrf_nonce", "resume_token", "page")
    SHORT_ID_FIELD_NUMBER: _ClassVar[int]
    CSRF_NONCE_FIELD_NUMBER: _ClassVar[int]
    RESUME_TOKEN_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    short_id: str
    csrf_nonce: str
    resume_token: str
    page: int
    def __init__(self, short_id: _Optional[str] = ..., csrf_nonce: _Optional[str] = ..., resume_token: _Optional[str] = ..., page: _Optional[int] = ...) -> None: ...

class GetHostedFormResponse(_message.Message):
    __slots__ = ("form", "start_token", "pow_challenge", "progress")
    FORM_FIELD_NUMBER: _ClassVar[int]
    START_TOKEN_FIELD_NUMBER: _ClassVar[int]
    POW_CHALLENGE_FIELD_NUMBER: _ClassVar[int]
    PROGRESS_FIELD_NUMBER: _ClassVar[int]
    form: _forms_pb2.Form
    start_token: str
    pow_challenge: ProofOfWorkChallenge
    progress: HostedProgress
    def __init__(self, form: _Optional[_Union[_forms_pb2.Form, _Mapping]] = ..., start_token: _Optional[str] = ..., pow_challenge: _Optional[_Union[ProofOfWorkChallenge, _Mapping]] = ..., progress: _Optional[_Union[HostedProgress, _Mapping]] = ...) -> None: ...

class HostedProgress(_message.Message):
    __slots__ = ("page", "page_count", "fields", "answers", "resume_token", "previous_page", "position", "shown_count")
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PAGE_COUNT_FIELD_NUMBER: _ClassVar[int]
    FIELDS_FIELD_NUMBER: _ClassVar[int]
    ANSWERS_FIELD_NUMBER: _ClassVar[int]
    RESUME_TOKEN_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_PAGE_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    SHOWN_COUNT_FIELD_NUMBER: _ClassVar[int]
    page: int
    page_count: int
    fields: _containers.RepeatedScalarFieldContainer[str]
    answers: _struct_pb2.Struct
    resume_token: str
    previous_page: int
    position: int
    shown_count: int
    def __init__(self, page: _Optional[int] = ..., page_count: _Optional[int] = ..., fields: _Optional[_Iterable[str]] = ..., answers: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., resume_token: _Optional[str] = ..., previous_page: _Optional[int] = ..., position: _Optional[int] = ..., shown_count: _Optional[int] = ...) -> None: ...

class ProofOfWorkChallenge(_message.Message):
    __slots__ = ("algorithm", "challenge", "salt", "max_number", "signature")
    ALGORITHM_FIELD_NUMBER: _ClassVar[int]
    CHALLENGE_FIELD_NUMBER: _ClassVar[int]
    SALT_FIELD_NUMBER: _ClassVar[int]
    MAX_NUMBER_FIELD_NUMBER: _ClassVar[int]
    SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    algorithm: str
    challenge: str
    salt: str
    max_number: int
    signature: str
    def __init__(self, algorithm: _Optional[str] = ..., challenge: _Optional[str] = ..., salt: _Optional[str] = ..., max_number: _Optional[int] = ..., signature: _Optional[str] = ...) -> None: ...

class SubmitHostedFormRequest(_message.Message):
    __slots__ = ("short_id", "start_token", "csrf_nonce", "answers", "user_agent", "honeypot_filled", "files", "page", "resume_token", "back", "pow_solution", "language")
    SHORT_ID_FIELD_NUMBER: _ClassVar[int]
    START_TOKEN_FIELD_NUMBER: _ClassVar[int]
    CSRF_NONCE_FIELD_NUMBER: _ClassVar[int]
    ANSWERS_FIELD_NUMBER: _ClassVar[int]
    USER_AGENT_FIELD_NUMBER: _ClassVar[int]
    HONEYPOT_FILLED_FIELD_NUMBER: _ClassVar[int]
    FILES_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    RESUME_TOKEN_FIELD_NUMBER: _ClassVar[int]
    BACK_FIELD_NUMBER: _ClassVar[int]
    POW_SOLUTION_FIELD_NUMBER: _ClassVar[int]
    LANGUAGE_FIELD_NUMBER: _ClassVar[int]
    short_id: str
    start_token: str
    csrf_nonce: str
    answers: _struct_pb2.Struct
    user_agent: str
    honeypot_filled: bool
    files: _containers.RepeatedCompositeFieldContainer[UploadedFile]
    page: int
    resume_token: str
    back: bool
    pow_solution: str
    language: str
    def __init__(self, short_id: _Optional[str] = ..., start_token: _Optional[str] = ..., csrf_nonce: _Optional[str] = ..., answers: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., user_agent: _Optional[str] = ..., honeypot_filled: _Optional[bool] = ..., files: _Optional[_Iterable[_Union[UploadedFile, _Mapping]]] = ..., page: _Optional[int] = ..., resume_token: _Optional[str] = ..., back: _Optional[bool] = ..., pow_solution: _Optional[str] = ..., language: _Optional[str] = ...) -> None: ...

class UploadedFile(_message.Message):
    __slots__ = ("field_id", "file_name", "content")
    FIELD_ID_FIELD_NUMBER: _ClassVar[int]
    FILE_NAME_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    field_id: str
    file_name: str
    content: bytes
    def __init__(self, field_id: _Optional[str] = ..., file_name: _Optional[str] = ..., content: _Optional[bytes] = ...) -> None: ...

class AdmitHostedSubmissionRequest(_message.Message):
    __slots__ = ("short_id", "start_token", "csrf_nonce")
    SHORT_ID_FIELD_NUMBER: _ClassVar[int]
    START_TOKEN_FIELD_NUMBER: _ClassVar[int]
    CSRF_NONCE_FIELD_NUMBER: _ClassVar[int]
    short_id: str
    start_token: str
    csrf_nonce: str
    def __init__(self, short_id: _Optional[str] = ..., start_token: _Optional[str] = ..., csrf_nonce: _Optional[str] = ...) -> None: ...

class AdmitHostedSubmissionResponse(_message.Message):
    __slots__ = ("file_fields",)
    FILE_FIELDS_FIELD_NUMBER: _ClassVar[int]
    file_fields: _containers.RepeatedCompositeFieldContainer[FileFieldLimit]
    def __init__(self, file_fields: _Optional[_Iterable[_Union[FileFieldLimit, _Mapping]]] = ...) -> None: ...

class FileFieldLimit(_message.Message):
    __slots__ = ("field_id", "max_bytes")
    FIELD_ID_FIELD_NUMBER: _ClassVar[int]
    MAX_BYTES_FIELD_NUMBER: _ClassVar[int]
    field_id: str
    max_bytes: int
    def __init__(self, field_id: _Optional[str] = ..., max_bytes: _Optional[int] = ...) -> None: ...

class SubmitHostedFormResponse(_message.Message):
    __slots__ = ("response_id", "confirmation_message", "redirect_url", "progress", "quiz_score", "quiz_max_score")
    RESPONSE_ID_FIELD_NUMBER: _ClassVar[int]
    CONFIRMATION_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    REDIRECT_URL_FIELD_NUMBER: _ClassVar[int]
    PROGRESS_FIELD_NUMBER: _ClassVar[int]
    QUIZ_SCORE_FIELD_NUMBER: _ClassVar[int]
    QUIZ_MAX_SCORE_FIELD_NUMBER: _ClassVar[int]
    response_id: str
    confirmation_message: str
    redirect_url: str
    progress: HostedProgress
    quiz_score: int
    quiz_max_score: int
    def __init__(self, response_id: _Optional[str] = ..., confirmation_message: _Optional[str] = ..., redirect_url: _Optional[str] = ..., progress: _Optional[_Union[HostedProgress, _Mapping]] = ..., quiz_score: _Optional[int] = ..., quiz_max_score: _Optional[int] = ...) -> None: ...

class HostedFormPage(_message.Message):
    __slots__ = ("form", "start_token", "pow_challenge", "progress", "kept_files")
    FORM_FIELD_NUMBER: _ClassVar[int]
    START_TOKEN_FIELD_NUMBER: _ClassVar[int]
    POW_CHALLENGE_FIELD_NUMBER: _ClassVar[int]
    PROGRESS_FIELD_NUMBER: _ClassVar[int]
    KEPT_FILES_FIELD_NUMBER: _ClassVar[int]
    form: _forms_pb2.Form
    start_token: str
    pow_challenge: ProofOfWorkChallenge
    progress: HostedProgress
    kept_files: _containers.RepeatedCompositeFieldContainer[KeptFile]
    def __init__(self, form: _Optional[_Union[_forms_pb2.Form, _Mapping]] = ..., start_token: _Optional[str] = ..., pow_challenge: _Optional[_Union[ProofOfWorkChallenge, _Mapping]] = ..., progress: _Optional[_Union[HostedProgress, _Mapping]] = ..., kept_files: _Optional[_Iterable[_Union[KeptFile, _Mapping]]] = ...) -> None: ...

class KeptFile(_message.Message):
    __slots__ = ("field_id", "token", "file_name", "size")
    FIELD_ID_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    FILE_NAME_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    field_id: str
    token: str
    file_name: str
    size: int
    def __init__(self, field_id: _Optional[str] = ..., token: _Optional[str] = ..., file_name: _Optional[str] = ..., size: _Optional[int] = ...) -> None: ...

class EndpointCaller(_message.Message):
    __slots__ = ("origin", "sec_fetch_site")
    ORIGIN_FIELD_NUMBER: _ClassVar[int]
    SEC_FETCH_SITE_FIELD_NUMBER: _ClassVar[int]
    origin: str
    sec_fetch_site: str
    def __init__(self, origin: _Optional[str] = ..., sec_fetch_site: _Optional[str] = ...) -> None: ...

class SubmitToEndpointRequest(_message.Message):
    __slots__ = ("short_id", "caller", "answers", "user_agent", "honeypot_filled", "files", "pow_solution")
    SHORT_ID_FIELD_NUMBER: _ClassVar[int]
    CALLER_FIELD_NUMBER: _ClassVar[int]
    ANSWERS_FIELD_NUMBER: _ClassVar[int]
    USER_AGENT_FIELD_NUMBER: _ClassVar[int]
    HONEYPOT_FILLED_FIELD_NUMBER: _ClassVar[int]
    FILES_FIELD_NUMBER: _ClassVar[int]
    POW_SOLUTION_FIELD_NUMBER: _ClassVar[int]
    short_id: str
    caller: EndpointCaller
    answers: _struct_pb2.Struct
    user_agent: str
    honeypot_filled: bool
    files: _containers.RepeatedCompositeFieldContainer[UploadedFile]
    pow_solution: str
    def __init__(self, short_id: _Optional[str] = ..., caller: _Optional[_Union[EndpointCaller, _Mapping]] = ..., answers: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., user_agent: _Optional[str] = ..., honeypot_filled: _Optional[bool] = ..., files: _Optional[_Iterable[_Union[UploadedFile, _Mapping]]] = ..., pow_solution: _Optional[str] = ...) -> None: ...

class SubmitToEndpointResponse(_message.Message):
    __slots__ = ("response_id", "confirmation_message", "redirect_url")
    RESPONSE_ID_FIELD_NUMBER: _ClassVar[int]
    CONFIRMATION_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    REDIRECT_URL_FIELD_NUMBER: _ClassVar[int]
    response_id: str
    confirmation_message: str
    redirect_url: str
    def __init__(self, response_id: _Optional[str] = ..., confirmation_message: _Optional[str] = ..., redirect_url: _Optional[str] = ...) -> None: ...

class AdmitEndpointSubmissionRequest(_message.Message):
    __slots__ = ("short_id", "caller")
    SHORT_ID_FIELD_NUMBER: _ClassVar[int]
    CALLER_FIELD_NUMBER: _ClassVar[int]
    short_id: str
    caller: EndpointCaller
    def __init__(self, short_id: _Optional[str] = ..., caller: _Optional[_Union[EndpointCaller, _Mapping]] = ...) -> None: ...

class AdmitEndpointSubmissionResponse(_message.Message):
    __slots__ = ("file_fields",)
    FILE_FIELDS_FIELD_NUMBER: _ClassVar[int]
    file_fields: _containers.RepeatedCompositeFieldContainer[FileFieldLimit]
    def __init__(self, file_fields: _Optional[_Iterable[_Union[FileFieldLimit, _Mapping]]] = ...) -> None: ...

class CheckEndpointOriginRequest(_message.Message):
    __slots__ = ("short_id", "origin")
    SHORT_ID_FIELD_NUMBER: _ClassVar[int]
    ORIGIN_FIELD_NUMBER: _ClassVar[int]
    short_id: str
    origin: str
    def __init__(self, short_id: _Optional[str] = ..., origin: _Optional[str] = ...) -> None: ...

class CheckEndpointOriginResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetEndpointChallengeRequest(_message.Message):
    __slots__ = ("short_id", "caller")
    SHORT_ID_FIELD_NUMBER: _ClassVar[int]
    CALLER_FIELD_NUMBER: _ClassVar[int]
    short_id: str
    caller: EndpointCaller
    def __init__(self, short_id: _Optional[str] = ..., caller: _Optional[_Union[EndpointCaller, _Mapping]] = ...) -> None: ...

class GetEndpointChallengeResponse(_message.Message):
    __slots__ = ("challenge",)
    CHALLENGE_FIELD_NUMBER: _ClassVar[int]
    challenge: ProofOfWorkChallenge
    def __init__(self, challenge: _Optional[_Union[ProofOfWorkChallenge, _Mapping]] = ...) -> None: ...

class GetHostedThemeRequest(_message.Message):
    __slots__ = ("short_id",)
    SHORT_ID_FIELD_NUMBER: _ClassVar[int]
    short_id: str
    def __init__(self, short_id: _Optional[str] = ...) -> None: ...

class GetHostedThemeResponse(_message.Message):
    __slots__ = ("theme",)
    THEME_FIELD_NUMBER: _ClassVar[int]
    theme: _forms_pb2.FormTheme
    def __init__(self, theme: _Optional[_Union[_forms_pb2.FormTheme, _Mapping]] = ...) -> None: ...

class GetHostedLogoRequest(_message.Message):
    __slots__ = ("short_id",)
    SHORT_ID_FIELD_NUMBER: _ClassVar[int]
    short_id: str
    def __init__(self, short_id: _Optional[str] = ...) -> None: ...

class GetHostedLogoResponse(_message.Message):
    __slots__ = ("id", "content_type", "content")
    ID_FIELD_NUMBER: _ClassVar[int]
    CONTENT_TYPE_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    id: str
    content_type: str
    content: bytes
    def __init__(self, id: _Optional[str] = ..., content_type: _Optional[str] = ..., content: _Optional[bytes] = ...) -> None: ...
