answers-heading = Ihre Antworten
why = Sie erhalten diese E-Mail, weil diese Adresse in einer Antwort auf das Formular „{ $form }“ angegeben wurde. Falls Sie das nicht waren, können Sie sie ignorieren; es folgen keine weiteren E-Mails daraus.
no-answer = (keine Antwort)
file = { $name } (Datei)
yes = Ja
no = Nein
