# Las palabras propias de la página del formulario, en español (modelo: locales/en/page.ftl).

## Botones y marco de la página

next = Siguiente
back = Atrás
submit = Enviar
choose = Elegir…
other = Otro
other-specify = Otro (especifique)
required = (obligatorio)
leave-empty = Dejar vacío
stars =
    { $n ->
        [one] { $n } estrella
       *[other] { $n } estrellas
    }
steps = Página { $position } de { $pages }
steps-title = { $title } (página { $position } de { $pages })
questions = Pregunta { $position } de { $pages }
questions-title = { $title } (pregunta { $position } de { $pages })
language = Idioma

## «Continuar más tarde»

later-title = Continuar más tarde
later-text = Sus respuestas hasta ahora están guardadas. Para volver a este formulario más tarde o en otro dispositivo, guarde este enlace:
later-copy = Su enlace para continuar

## Comprobación contra robots

pow-noscript = Este formulario necesita JavaScript para enviarse: su navegador resuelve un pequeño acertijo que demuestra que no es un robot, sin terceros. Active JavaScript para esta página.
pow-missing = Este formulario necesita JavaScript para enviarse: su navegador resuelve un pequeño acertijo que demuestra que no es un robot. Sus respuestas se conservan: active JavaScript y envíe de nuevo.
pow-expired = La comprobación contra robots de esta página había caducado o ya se había usado. Sus respuestas se conservan: envíe de nuevo.
pow-checking = Comprobando que envía este formulario un navegador y no un robot. El envío estará listo en un momento.
pow-failed = Esta página no pudo terminar su comprobación contra robots. Vuelva a cargarla.
pow-ready = Listo para enviar.

## Después de enviar

fix-below = Corrija los campos marcados abajo.
page-expired = Esta página había caducado. Sus respuestas se conservan: envíe de nuevo.
thanks-title = Gracias
thanks-text = Su respuesta ha quedado registrada.
sent-title = Respuesta enviada

## Páginas de error

not-found-title = Formulario no encontrado
not-found-text = No hay ningún formulario abierto en esta dirección.
closed-title = Este formulario está cerrado
closed-text = Ya no acepta respuestas.
limit-title = Este formulario no acepta respuestas
limit-text = Su propietario ha alcanzado su límite de respuestas.
partials-title = No se pudieron guardar sus respuestas para más tarde
partials-text = Este formulario ya guarda tantas respuestas sin terminar como puede. Vuelva atrás y envíe sus respuestas ahora, o intente guardarlas más tarde.
rate-title = Demasiados envíos
rate-text = Espere un minuto y vuelva a intentarlo.
failed-title = Algo ha fallado
failed-text = Vuelva a intentarlo en breve (id de solicitud { $id }).

## Un problema con una respuesta: { $label } es la etiqueta de la pregunta

field-required = «{ $label }» es obligatorio
field-too-long = «{ $label }» debe tener como máximo { $max } caracteres
field-not-text = «{ $label }» debe ser un texto
field-email = «{ $label }» debe ser una dirección de correo electrónico
field-number = «{ $label }» debe ser un número
field-at-least = «{ $label }» debe ser al menos { $min }
field-at-most = «{ $label }» debe ser como máximo { $max }
field-whole-number = «{ $label }» debe ser un número entero de { $min } a { $max }
field-date = «{ $label }» debe ser una fecha escrita AAAA-MM-DD
field-not-before = «{ $label }» no puede ser anterior al { $date }
field-not-after = «{ $label }» no puede ser posterior al { $date }
field-url = «{ $label }» debe ser una dirección http o https de como máximo { $max } caracteres
field-phone = «{ $label }» debe ser un número de teléfono en formato internacional, que empiece por + y el prefijo del país
field-ticked = «{ $label }» debe estar marcado
field-option = «{ $label }» debe ser una de las opciones ofrecidas
field-options = «{ $label }» debe estar entre las opciones ofrecidas
field-other-text = «{ $label }»: indique «Otro» con 1 a { $max } caracteres
field-tick-at-least = «{ $label }»: marque al menos { $min } opciones
field-tick-at-most = «{ $label }»: marque como máximo { $max } opciones
field-one-file = «{ $label }» admite un solo archivo
field-empty-file = «{ $label }» es un archivo vacío
field-file-too-big = «{ $label }» debe ocupar como máximo { $mb } MB
field-file-type = «{ $label }» debe ser de uno de estos tipos: { $types }
field-file-extension = «{ $label }» debe tener una extensión de archivo
field-file-content = «{ $label }» no parece un archivo .{ $claimed }
file-kept = Conservar el archivo elegido: { $name } ({ $size })
quiz-score = Su puntuación: { $score } de { $max } puntos
