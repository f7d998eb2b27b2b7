# Die eigenen Wörter der Formularseite auf Deutsch (Vorlage: locales/en/page.ftl).

## Schaltflächen und Rahmen der Seite

next = Weiter
back = Zurück
submit = Absenden
choose = Bitte wählen…
other = Sonstiges
other-specify = Sonstiges (bitte angeben)
required = (Pflichtfeld)
leave-empty = Leer lassen
stars =
    { $n ->
        [one] { $n } Stern
       *[other] { $n } Sterne
    }
steps = Seite { $position } von { $pages }
steps-title = { $title } (Seite { $position } von { $pages })
questions = Frage { $position } von { $pages }
questions-title = { $title } (Frage { $position } von { $pages })
language = Sprache

## „Später fortsetzen“

later-title = Später fortsetzen
later-text = Ihre bisherigen Antworten sind gespeichert. Um das Formular später oder auf einem anderen Gerät fortzusetzen, bewahren Sie diesen Link auf:
later-copy = Ihr Link zum Fortsetzen

## Prüfung gegen Roboter

pow-noscript = Dieses Formular braucht JavaScript, um gesendet zu werden: Ihr Browser löst ein kleines Rätsel, das zeigt, dass er kein Roboter ist, ohne Beteiligung Dritter. Bitte schalten Sie JavaScript für diese Seite ein.
pow-missing = Dieses Formular braucht JavaScript, um gesendet zu werden: Ihr Browser löst ein kleines Rätsel, das zeigt, dass er kein Roboter ist. Ihre Antworten bleiben erhalten: Bitte schalten Sie JavaScript ein und senden Sie erneut.
pow-expired = Die Prüfung gegen Roboter auf dieser Seite war abgelaufen oder schon benutzt. Ihre Antworten bleiben erhalten: Bitte senden Sie erneut.
pow-checking = Es wird geprüft, dass ein Browser und kein Roboter dieses Formular sendet. Absenden ist gleich bereit.
pow-failed = Diese Seite konnte die Prüfung gegen Roboter nicht abschließen. Bitte laden Sie sie neu.
pow-ready = Bereit zum Absenden.

## Nach dem Absenden

fix-below = Bitte korrigieren Sie die markierten Felder.
page-expired = Diese Seite war abgelaufen. Ihre Antworten bleiben erhalten: Bitte senden Sie erneut.
thanks-title = Vielen Dank
thanks-text = Ihre Antwort wurde gespeichert.
sent-title = Antwort gesendet

## Fehlerseiten

not-found-title = Formular nicht gefunden
not-found-text = Unter dieser Adresse gibt es kein offenes Formular.
closed-title = Dieses Formular ist geschlossen
closed-text = Es nimmt keine Antworten mehr an.
limit-title = Dieses Formular nimmt keine Antworten an
limit-text = Sein Besitzer hat sein Antwortlimit erreicht.
partials-title = Ihre Antworten konnten nicht für später gespeichert werden
partials-text = Dieses Formular hält so viele unfertige Antworten, wie es kann. Gehen Sie zurück und senden Sie Ihre Antworten jetzt ab, oder versuchen Sie später erneut, sie zu speichern.
rate-title = Zu viele Einsendungen
rate-text = Bitte warten Sie eine Minute und versuchen Sie es erneut.
failed-title = Etwas ist schiefgelaufen
failed-text = Bitte versuchen Sie es in Kürze erneut (Anfrage-ID { $id }).

## Ein Problem mit einer Antwort: { $label } ist die Beschriftung der Frage

field-required = „{ $label }“ ist ein Pflichtfeld
field-too-long = „{ $label }“ darf höchstens { $max } Zeichen lang sein
field-not-text = „{ $label }“ muss ein Text sein
field-email = „{ $label }“ muss eine E-Mail-Adresse sein
field-number = „{ $label }“ muss eine Zahl sein
field-at-least = „{ $label }“ muss mindestens { $min } sein
field-at-most = „{ $label }“ darf höchstens { $max } sein
field-whole-number = „{ $label }“ muss eine ganze Zahl von { $min } bis { $max } sein
field-date = „{ $label }“ muss ein Datum im Format JJJJ-MM-TT sein
field-not-before = „{ $label }“ darf nicht vor dem { $date } liegen
field-not-after = „{ $label }“ darf nicht nach dem { $date } liegen
field-url = „{ $label }“ muss eine http- oder https-Adresse mit höchstens { $max } Zeichen sein
field-phone = „{ $label }“ muss eine Telefonnummer im internationalen Format sein, beginnend mit + und der Ländervorwahl
field-ticked = „{ $label }“ muss angekreuzt sein
field-option = „{ $label }“ muss eine der angebotenen Antworten sein
field-options = „{ $label }“ muss aus den angebotenen Antworten stammen
field-other-text = „{ $label }“: Bitte geben Sie „Sonstiges“ mit 1 bis { $max } Zeichen an
field-tick-at-least = „{ $label }“: Bitte kreuzen Sie mindestens { $min } an
field-tick-at-most = „{ $label }“: Bitte kreuzen Sie höchstens { $max } an
field-one-file = „{ $label }“ nimmt nur eine Datei
field-empty-file = „{ $label }“ ist eine leere Datei
field-file-too-big = „{ $label }“ darf höchstens { $mb } MB groß sein
field-file-type = „{ $label }“ muss eine dieser Dateiarten sein: { $types }
field-file-extension = „{ $label }“ braucht eine Dateiendung
field-file-content = „{ $label }“ sieht nicht wie eine .{ $claimed }-Datei aus
file-kept = Die gewählte Datei behalten: { $name } ({ $size })
quiz-score = Ihr Ergebnis: { $score } von { $max } Punkten
