# Własne słowa strony formularza, po polsku (wzór: locales/en/page.ftl).

## Przyciski i ramka strony

next = Dalej
back = Wstecz
submit = Wyślij
choose = Wybierz…
other = Inne
other-specify = Inne (proszę podać)
required = (wymagane)
leave-empty = Zostaw puste
stars =
    { $n ->
        [one] { $n } gwiazdka
        [few] { $n } gwiazdki
       *[other] { $n } gwiazdek
    }
steps = Strona { $position } z { $pages }
steps-title = { $title } (strona { $position } z { $pages })
questions = Pytanie { $position } z { $pages }
questions-title = { $title } (pytanie { $position } z { $pages })
language = Język

## „Dokończ później”

later-title = Dokończ później
later-text = Twoje dotychczasowe odpowiedzi są zapisane. Aby wrócić do tego formularza później lub na innym urządzeniu, zachowaj ten link:
later-copy = Twój link do kontynuacji

## Sprawdzenie, czy nie jesteś robotem

pow-noscript = Ten formularz potrzebuje JavaScriptu, aby go wysłać: przeglądarka rozwiązuje małą zagadkę, która pokazuje, że nie jest robotem, bez udziału osób trzecich. Włącz JavaScript dla tej strony.
pow-missing = Ten formularz potrzebuje JavaScriptu, aby go wysłać: przeglądarka rozwiązuje małą zagadkę, która pokazuje, że nie jest robotem. Twoje odpowiedzi są zachowane: włącz JavaScript i wyślij ponownie.
pow-expired = Sprawdzenie na tej stronie wygasło albo zostało już użyte. Twoje odpowiedzi są zachowane: wyślij ponownie.
pow-checking = Sprawdzamy, czy formularz wysyła przeglądarka, a nie robot. Wysyłanie będzie gotowe za chwilę.
pow-failed = Ta strona nie mogła dokończyć sprawdzenia. Odśwież ją.
pow-ready = Gotowe do wysłania.

## Po wysłaniu

fix-below = Popraw pola oznaczone poniżej.
page-expired = Ta strona wygasła. Twoje odpowiedzi są zachowane: wyślij ponownie.
thanks-title = Dziękujemy
thanks-text = Twoja odpowiedź została zapisana.
sent-title = Odpowiedź wysłana

## Strony błędów

not-found-title = Nie znaleziono formularza
not-found-text = Pod tym adresem nie ma otwartego formularza.
closed-title = Ten formularz jest zamknięty
closed-text = Nie przyjmuje już odpowiedzi.
limit-title = Ten formularz nie przyjmuje odpowiedzi
limit-text = Jego właściciel osiągnął limit odpowiedzi.
partials-title = Nie udało się zapisać odpowiedzi na później
partials-text = Ten formularz przechowuje już tyle niedokończonych odpowiedzi, ile może. Wróć i wyślij odpowiedzi teraz albo spróbuj zapisać je później.
rate-title = Zbyt wiele zgłoszeń
rate-text = Odczekaj minutę i spróbuj ponownie.
failed-title = Coś poszło nie tak
failed-text = Spróbuj ponownie za chwilę (id żądania { $id }).

## Problem z jedną odpowiedzią: { $label } to etykieta pytania

field-required = „{ $label }” jest wymagane
field-too-long = „{ $label }” może mieć najwyżej { $max } znaków
field-not-text = „{ $label }” musi być tekstem
field-email = „{ $label }” musi być adresem e-mail
field-number = „{ $label }” musi być liczbą
field-at-least = „{ $label }” musi wynosić co najmniej { $min }
field-at-most = „{ $label }” może wynosić najwyżej { $max }
field-whole-number = „{ $label }” musi być liczbą całkowitą od { $min } do { $max }
field-date = „{ $label }” musi być datą w formacie RRRR-MM-DD
field-not-before = „{ $label }” nie może być wcześniej niż { $date }
field-not-after = „{ $label }” nie może być później niż { $date }
field-url = „{ $label }” musi być adresem http lub https o długości najwyżej { $max } znaków
field-phone = „{ $label }” musi być numerem telefonu w formacie międzynarodowym, zaczynającym się od + i kodu kraju
field-ticked = „{ $label }” musi być zaznaczone
field-option = „{ $label }” musi być jedną z podanych odpowiedzi
field-options = „{ $label }” musi należeć do podanych odpowiedzi
field-other-text = „{ $label }”: opisz „Inne” w 1 do { $max } znaków
field-tick-at-least = „{ $label }”: zaznacz co najmniej { $min }
field-tick-at-most = „{ $label }”: zaznacz najwyżej { $max }
field-one-file = „{ $label }” przyjmuje jeden plik
field-empty-file = „{ $label }” to pusty plik
field-file-too-big = „{ $label }” może mieć najwyżej { $mb } MB
field-file-type = „{ $label }” musi być jednym z typów: { $types }
field-file-extension = „{ $label }” musi mieć rozszerzenie pliku
field-file-content = „{ $label }” nie wygląda na plik .{ $claimed }
file-kept = Zachowaj wybrany plik: { $name } ({ $size })
quiz-score = Twój wynik: { $score } z { $max } pkt
