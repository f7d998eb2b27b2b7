# كلمات صفحة النموذج الخاصة بها، بالعربية (الأصل: locales/en/page.ftl).

## الأزرار وإطار الصفحة

next = التالي
back = السابق
submit = إرسال
choose = اختر…
other = غير ذلك
other-specify = غير ذلك (يرجى التحديد)
required = (مطلوب)
leave-empty = اتركه فارغًا
stars =
    { $n ->
        [one] نجمة واحدة
        [two] نجمتان
        [few] { $n } نجوم
       *[other] { $n } نجمة
    }
steps = الصفحة { $position } من { $pages }
steps-title = { $title } (الصفحة { $position } من { $pages })
questions = السؤال { $position } من { $pages }
questions-title = { $title } (السؤال { $position } من { $pages })
language = اللغة

## «المتابعة لاحقًا»

later-title = المتابعة لاحقًا
later-text = إجاباتك حتى الآن محفوظة. للعودة إلى هذا النموذج لاحقًا أو من جهاز آخر، احتفظ بهذا الرابط:
later-copy = رابطك للمتابعة

## التحقق من أنك لست روبوتًا

pow-noscript = يحتاج هذا النموذج إلى JavaScript لإرساله: يحل متصفحك لغزًا صغيرًا يُثبت أنه ليس روبوتًا، دون أي طرف ثالث. يرجى تفعيل JavaScript لهذه الصفحة.
pow-missing = يحتاج هذا النموذج إلى JavaScript لإرساله: يحل متصفحك لغزًا صغيرًا يُثبت أنه ليس روبوتًا. إجاباتك محفوظة: يرجى تفعيل JavaScript والإرسال مرة أخرى.
pow-expired = انتهت صلاحية التحقق في هذه الصفحة أو استُخدم من قبل. إجاباتك محفوظة: يرجى الإرسال مرة أخرى.
pow-checking = نتحقق من أن متصفحًا، لا روبوتًا، يرسل هذا النموذج. سيكون الإرسال جاهزًا بعد لحظة.
pow-failed = تعذّر على هذه الصفحة إكمال التحقق من أنك لست روبوتًا. يرجى إعادة تحميلها.
pow-ready = جاهز للإرسال.

## بعد الإرسال

fix-below = يرجى تصحيح الحقول المشار إليها أدناه.
page-expired = انتهت صلاحية هذه الصفحة. إجاباتك محفوظة: يرجى الإرسال مرة أخرى.
thanks-title = شكرًا لك
thanks-text = تم تسجيل إجابتك.
sent-title = تم إرسال الإجابة

## صفحات الأخطاء

not-found-title = النموذج غير موجود
not-found-text = لا يوجد نموذج مفتوح على هذا العنوان.
closed-title = هذا النموذج مغلق
closed-text = لم يعد يقبل الإجابات.
limit-title = هذا النموذج لا يقبل الإجابات
limit-text = بلغ صاحبه الحد الأقصى للإجابات.
partials-title = تعذّر حفظ إجاباتك للمتابعة لاحقًا
partials-text = يحتفظ هذا النموذج بأكبر عدد ممكن من الإجابات غير المكتملة. ارجع وأرسل إجاباتك الآن، أو حاول حفظها مرة أخرى لاحقًا.
rate-title = عدد كبير جدًا من الإرسالات
rate-text = يرجى الانتظار دقيقة ثم المحاولة مرة أخرى.
failed-title = حدث خطأ ما
failed-text = يرجى المحاولة مرة أخرى بعد قليل (معرّف الطلب { $id }).

## مشكلة في إجابة واحدة: { $label } هو عنوان السؤال

field-required = «{ $label }» مطلوب
field-too-long = يجب ألا يتجاوز «{ $label }» { $max } حرفًا
field-not-text = يجب أن يكون «{ $label }» نصًا
field-email = يجب أن يكون «{ $label }» عنوان بريد إلكتروني
field-number = يجب أن يكون «{ $label }» رقمًا
field-at-least = يجب أن يكون «{ $label }» { $min } على الأقل
field-at-most = يجب ألا يزيد «{ $label }» على { $max }
field-whole-number = يجب أن يكون «{ $label }» عددًا صحيحًا من { $min } إلى { $max }
field-date = يجب أن يكون «{ $label }» تاريخًا مكتوبًا بالشكل YYYY-MM-DD
field-not-before = يجب ألا يكون «{ $label }» قبل { $date }
field-not-after = يجب ألا يكون «{ $label }» بعد { $date }
field-url = يجب أن يكون «{ $label }» عنوان http أو https لا يتجاوز { $max } حرفًا
field-phone = يجب أن يكون «{ $label }» رقم هاتف بالصيغة الدولية، يبدأ بعلامة + ورمز البلد
field-ticked = يجب تحديد «{ $label }»
field-option = يجب أن يكون «{ $label }» أحد الخيارات المعروضة
field-options = يجب أن يكون «{ $label }» من بين الخيارات المعروضة
field-other-text = «{ $label }»: اكتب ما تقصده بـ«غير ذلك» في 1 إلى { $max } حرفًا
field-tick-at-least = «{ $label }»: اختر { $min } على الأقل
field-tick-at-most = «{ $label }»: اختر { $max } على الأكثر
field-one-file = يقبل «{ $label }» ملفًا واحدًا
field-empty-file = ملف «{ $label }» فارغ
field-file-too-big = يجب ألا يتجاوز «{ $label }» { $mb } ميغابايت
field-file-type = يجب أن يكون «{ $label }» من أحد هذه الأنواع: { $types }
field-file-extension = يجب أن يكون لملف «{ $label }» امتداد
field-file-content = لا يبدو «{ $label }» ملفًا من نوع .{ $claimed }
file-kept = الاحتفاظ بالملف المختار: { $name } ({ $size })
quiz-score = نتيجتك: { $score } من { $max } نقطة
