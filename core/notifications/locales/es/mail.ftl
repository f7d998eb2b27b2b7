answers-heading = Sus respuestas
why = Recibe este correo porque esta dirección se indicó en una respuesta al formulario «{ $form }». Si no fue usted, puede ignorarlo; no recibirá más correos por ello.
no-answer = (sin respuesta)
file = { $name } (archivo)
yes = Sí
no = No
