import datetime

from forms.v1 import common_pb2 as _common_pb2
from google.protobuf import field_mask_pb2 as _field_mask_pb2
from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class FormStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FORM_STATUS_UNSPECIFIED: _ClassVar[FormStatus]
    FORM_STATUS_DRAFT: _ClassVar[FormStatus]
    FORM_STATUS_PUBLISHED: _ClassVar[FormStatus]
    FORM_STATUS_ARCHIVED: _ClassVar[FormStatus]
FORM_STATUS_UNSPECIFIED: FormStatus
FORM_STATUS_DRAFT: FormStatus
FORM_STATUS_PUBLISHED: FormStatus
FORM_STATUS_ARCHIVED: FormStatus

class Form(_message.Message):
    __slots__ = ("id", "title", "description", "status", "fields", "settings", "short_id", "created_at", "updated_at", "published_at", "default_language", "translations", "theme", "retention_days")
    ID_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    FIELDS_FIELD_NUMBER: _ClassVar[int]
    SETTINGS_FIELD_NUMBER: _ClassVar[int]
    SHORT_ID_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    PUBLISHED_AT_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_LANGUAGE_FIELD_NUMBER: _ClassVar[int]
    TRANSLATIONS_FIELD_NUMBER: _ClassVar[int]
    THEME_FIELD_NUMBER: _ClassVar[int]
    RETENTION_DAYS_FIELD_NUMBER: _ClassVar[int]
    id: str
    title: str
    description: str
    status: FormStatus
    fields: _containers.RepeatedCompositeFieldContainer[FormField]
    settings: _struct_pb2.Struct
    short_id: str
    created_at: _timestamp_pb2.Timestamp
    updated_at: _timestamp_pb2.Timestamp
    published_at: _timestamp_pb2.Timestamp
    default_language: str
    translations: _struct_pb2.Struct
    theme: FormTheme
    retention_days: int
    def __init__(self, id: _Optional[str] = ..., title: _Optional[str] = ..., description: _Optional[str] = ..., status: _Optional[_Union[FormStatus, str]] = ..., fields: _Optional[_Iterable[_Union[FormField, _Mapping]]] = ..., settings: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., short_id: _Optional[str] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., updated_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., published_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., default_language: _Optional[str] = ..., translations: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., theme: _Optional[_Union[FormTheme, _Mapping]] = ..., retention_days: _Optional[int] = ...) -> None: ...

class FormTheme(_message.Message):
    __slots__ = ("accent", "background", "font", "radius", "appearance", "logo")
    ACCENT_FIELD_NUMBER: _ClassVar[int]
    BACKGROUND_FIELD_NUMBER: _ClassVar[int]
    FONT_FIELD_NUMBER: _ClassVar[int]
    RADIUS_FIELD_NUMBER: _ClassVar[int]
    APPEARANCE_FIELD_NUMBER: _ClassVar[int]
    LOGO_FIELD_NUMBER: _ClassVar[int]
    accent: str
    background: str
    font: str
    radius: int
    appearance: str
    logo: FormLogo
    def __init__(self, accent: _Optional[str] = ..., background: _Optional[str] = ..., font: _Optional[str] = ..., radius: _Optional[int] = ..., appearance: _Optional[str] = ..., logo: _Optional[_Union[FormLogo, _Mapping]] = ...) -> None: ...

class FormLogo(_message.Message):
    __slots__ = ("id", "content_type", "size")
    ID_FIELD_NUMBER: _ClassVar[int]
    CONTENT_TYPE_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    id: str
    content_type: str
    size: int
    def __init__(self, id: _Optional[str] = ..., content_type: _Optional[str] = ..., size: _Optional[int] = ...) -> None: ...

class FormField(_message.Message):
    __slots__ = ("id", "type", "label", "required", "placeholder", "allowed_types", "max_size_mb", "correct_answer", "points", "options", "min_selected", "max_selected", "allow_other", "min", "max", "min_label", "max_label", "ref", "show_if")
    ID_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    REQUIRED_FIELD_NUMBER: _ClassVar[int]
    PLACEHOLDER_FIELD_NUMBER: _ClassVar[int]
    ALLOWED_TYPES_FIELD_NUMBER: _ClassVar[int]
    MAX_SIZE_MB_FIELD_NUMBER: _ClassVar[int]
    CORRECT_ANSWER_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    MIN_SELECTED_FIELD_NUMBER: _ClassVar[int]
    MAX_SELECTED_FIELD_NUMBER: _ClassVar[int]
    ALLOW_OTHER_FIELD_NUMBER: _ClassVar[int]
    MIN_FIELD_NUMBER: _ClassVar[int]
    MAX_FIELD_NUMBER: _ClassVar[int]
    MIN_LABEL_FIELD_NUMBER: _ClassVar[int]
    MAX_LABEL_FIELD_NUMBER: _ClassVar[int]
    REF_FIELD_NUMBER: _ClassVar[int]
    SHOW_IF_FIELD_NUMBER: _ClassVar[int]
    id: str
    type: str
    label: str
    required: bool
    placeholder: str
    allowed_types: _containers.RepeatedScalarFieldContainer[str]
    max_size_mb: float
    correct_answer: _struct_pb2.Value
    points: int
    options: _containers.RepeatedCompositeFieldContainer[FieldOption]
    min_selected: int
    max_selected: int
    allow_other: bool
    min: _struct_pb2.Value
    max: _struct_pb2.Value
    min_label: str
    max_label: str
    ref: str
    show_if: _containers.RepeatedCompositeFieldContainer[Condition]
    def __init__(self, id: _Optional[str] = ..., type: _Optional[str] = ..., label: _Optional[str] = ..., required: _Optional[bool] = ..., placeholder: _Optional[str] = ..., allowed_types: _Optional[_Iterable[str]] = ..., max_size_mb: _Optional[float] = ..., correct_answer: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ..., points: _Optional[int] = ..., options: _Optional[_Iterable[_Union[FieldOption, _Mapping]]] = ..., min_selected: _Optional[int] = ..., max_selected: _Optional[int] = ..., allow_other: _Optional[bool] = ..., min: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ..., max: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ..., min_label: _Optional[str] = ..., max_label: _Optional[str] = ..., ref: _Optional[str] = ..., show_if: _Optional[_Iterable[_Union[Condition, _Mapping]]] = ...) -> None: ...

class Condition(_message.Message):
    __slots__ = ("field", "op", "value")
    FIELD_FIELD_NUMBER: _ClassVar[int]
    OP_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    field: str
    op: str
    value: _struct_pb2.Value
    def __init__(self, field: _Optional[str] = ..., op: _Optional[str] = ..., value: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ...) -> None: ...

class FieldOption(_message.Message):
    __slots__ = ("id", "label")
    ID_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    id: str
    label: str
    def __init__(self, id: _Optional[str] = ..., label: _Optional[str] = ...) -> None: ...

class ListFormsRequest(_message.Message):
    __slots__ = ("page", "per_page", "status", "search")
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PER_PAGE_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    SEARCH_FIELD_NUMBER: _ClassVar[int]
    page: int
    per_page: int
    status: FormStatus
    search: str
    def __init__(self, page: _Optional[int] = ..., per_page: _Optional[int] = ..., status: _Optional[_Union[FormStatus, str]] = ..., search: _Optional[str] = ...) -> None: ...

class ListFormsResponse(_message.Message):
    __slots__ = ("forms", "pagination")
    FORMS_FIELD_NUMBER: _ClassVar[int]
    PAGINATION_FIELD_NUMBER: _ClassVar[int]
    forms: _containers.RepeatedCompositeFieldContainer[Form]
    pagination: _common_pb2.PagePagination
    def __init__(self, forms: _Optional[_Iterable[_Union[Form, _Mapping]]] = ..., pagination: _Optional[_Union[_common_pb2.PagePagination, _Mapping]] = ...) -> None: ...

class GetFormRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class GetFormResponse(_message.Message):
    __slots__ = ("form",)
    FORM_FIELD_NUMBER: _ClassVar[int]
    form: Form
    def __init__(self, form: _Optional[_Union[Form, _Mapping]] = ...) -> None: ...

class CreateFormRequest(_message.Message):
    __slots__ = ("title", "description", "fields", "settings", "default_language", "translations", "theme", "retention_days")
    TITLE_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    FIELDS_FIELD_NUMBER: _ClassVar[int]
    SETTINGS_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_LANGUAGE_FIELD_NUMBER: _ClassVar[int]
    TRANSLATIONS_FIELD_NUMBER: _ClassVar[int]
    THEME_FIELD_NUMBER: _ClassVar[int]
    RETENTION_DAYS_FIELD_NUMBER: _ClassVar[int]
    title: str
    description: str
    fields: _containers.RepeatedCompositeFieldContainer[FormField]
    settings: _struct_pb2.Struct
    default_language: str
    translations: _struct_pb2.Struct
    theme: FormTheme
    retention_days: int
    def __init__(self, title: _Optional[str] = ..., description: _Optional[str] = ..., fields: _Optional[_Iterable[_Union[FormField, _Mapping]]] = ..., settings: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., default_language: _Optional[str] = ..., translations: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., theme: _Optional[_Union[FormTheme, _Mapping]] = ..., retention_days: _Optional[int] = ...) -> None: ...

class CreateFormResponse(_message.Message):
    __slots__ = ("form",)
    FORM_FIELD_NUMBER: _ClassVar[int]
    form: Form
    def __init__(self, form: _Optional[_Union[Form, _Mapping]] = ...) -> None: ...

class UpdateFormRequest(_message.Message):
    __slots__ = ("id", "form", "update_mask")
    ID_FIELD_NUMBER: _ClassVar[int]
    FORM_FIELD_NUMBER: _ClassVar[int]
    UPDATE_MASK_FIELD_NUMBER: _ClassVar[int]
    id: str
    form: Form
    update_mask: _field_mask_pb2.FieldMask
    def __init__(self, id: _Optional[str] = ..., form: _Optional[_Union[Form, _Mapping]] = ..., update_mask: _Optional[_Union[_field_mask_pb2.FieldMask, _Mapping]] = ...) -> None: ...

class UpdateFormResponse(_message.Message):
    __slots__ = ("form",)
    FORM_FIELD_NUMBER: _ClassVar[int]
    form: Form
    def __init__(self, form: _Optional[_Union[Form, _Mapping]] = ...) -> None: ...

class DeleteFormRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class DeleteFormResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SetFormLogoRequest(_message.Message):
    __slots__ = ("id", "content", "remove")
    ID_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    REMOVE_FIELD_NUMBER: _ClassVar[int]
    id: str
    content: bytes
    remove: bool
    def __init__(self, id: _Optional[str] = ..., content: _Optional[bytes] = ..., remove: _Optional[bool] = ...) -> None: ...

class SetFormLogoResponse(_message.Message):
    __slots__ = ("form",)
    FORM_FIELD_NUMBER: _ClassVar[int]
    form: Form
    def __init__(self, form: _Optional[_Union[Form, _Mapping]] = ...) -> None: ...
