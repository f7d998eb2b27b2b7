# De eigen woorden van de formulierpagina, in het Nederlands (voorbeeld: locales/en/page.ftl).

## Knoppen en kader van de pagina

next = Volgende
back = Terug
submit = Versturen
choose = Kies…
other = Anders
other-specify = Anders (graag invullen)
required = (verplicht)
leave-empty = Leeg laten
stars =
    { $n ->
        [one] { $n } ster
       *[other] { $n } sterren
    }
steps = Pagina { $position } van { $pages }
steps-title = { $title } (pagina { $position } van { $pages })
questions = Vraag { $position } van { $pages }
questions-title = { $title } (vraag { $position } van { $pages })
language = Taal

## „Later verdergaan”

later-title = Later verdergaan
later-text = Uw antwoorden tot nu toe zijn bewaard. Bewaar deze link om later of op een ander apparaat verder te gaan met dit formulier:
later-copy = Uw link om verder te gaan

## Controle tegen robots

pow-noscript = Dit formulier heeft JavaScript nodig om verstuurd te worden: uw browser lost een kleine puzzel op die laat zien dat hij geen robot is, zonder derde partij. Zet JavaScript aan voor deze pagina.
pow-missing = Dit formulier heeft JavaScript nodig om verstuurd te worden: uw browser lost een kleine puzzel op die laat zien dat hij geen robot is. Uw antwoorden zijn bewaard: zet JavaScript aan en verstuur opnieuw.
pow-expired = De controle tegen robots van deze pagina was verlopen of al gebruikt. Uw antwoorden zijn bewaard: verstuur opnieuw.
pow-checking = Er wordt gecontroleerd dat een browser en geen robot dit formulier verstuurt. Versturen is zo klaar.
pow-failed = Deze pagina kon de controle tegen robots niet afronden. Laad haar opnieuw.
pow-ready = Klaar om te versturen.

## Na het versturen

fix-below = Verbeter de gemarkeerde velden hieronder.
page-expired = Deze pagina was verlopen. Uw antwoorden zijn bewaard: verstuur opnieuw.
thanks-title = Bedankt
thanks-text = Uw antwoord is opgeslagen.
sent-title = Antwoord verstuurd

## Foutpagina's

not-found-title = Formulier niet gevonden
not-found-text = Op dit adres staat geen open formulier.
closed-title = Dit formulier is gesloten
closed-text = Het neemt geen antwoorden meer aan.
limit-title = Dit formulier neemt geen antwoorden aan
limit-text = De eigenaar heeft zijn limiet voor antwoorden bereikt.
partials-title = Uw antwoorden konden niet voor later worden bewaard
partials-text = Dit formulier bewaart al zoveel onafgemaakte antwoorden als het kan. Ga terug en verstuur uw antwoorden nu, of probeer ze later opnieuw te bewaren.
rate-title = Te veel inzendingen
rate-text = Wacht een minuut en probeer het opnieuw.
failed-title = Er ging iets mis
failed-text = Probeer het zo opnieuw (verzoek-id { $id }).

## Een probleem met één antwoord: { $label } is het label van de vraag

field-required = ‘{ $label }’ is verplicht
field-too-long = ‘{ $label }’ mag hoogstens { $max } tekens lang zijn
field-not-text = ‘{ $label }’ moet tekst zijn
field-email = ‘{ $label }’ moet een e-mailadres zijn
field-number = ‘{ $label }’ moet een getal zijn
field-at-least = ‘{ $label }’ moet minstens { $min } zijn
field-at-most = ‘{ $label }’ mag hoogstens { $max } zijn
field-whole-number = ‘{ $label }’ moet een geheel getal van { $min } tot { $max } zijn
field-date = ‘{ $label }’ moet een datum zijn, geschreven als JJJJ-MM-DD
field-not-before = ‘{ $label }’ mag niet vóór { $date } liggen
field-not-after = ‘{ $label }’ mag niet na { $date } liggen
field-url = ‘{ $label }’ moet een http- of https-adres van hoogstens { $max } tekens zijn
field-phone = ‘{ $label }’ moet een telefoonnummer in internationale vorm zijn, beginnend met + en de landcode
field-ticked = ‘{ $label }’ moet aangevinkt zijn
field-option = ‘{ $label }’ moet een van de aangeboden keuzes zijn
field-options = ‘{ $label }’ moet uit de aangeboden keuzes komen
field-other-text = ‘{ $label }’: vul bij ‘Anders’ 1 tot { $max } tekens in
field-tick-at-least = ‘{ $label }’: vink er minstens { $min } aan
field-tick-at-most = ‘{ $label }’: vink er hoogstens { $max } aan
field-one-file = ‘{ $label }’ neemt één bestand
field-empty-file = ‘{ $label }’ is een leeg bestand
field-file-too-big = ‘{ $label }’ mag hoogstens { $mb } MB zijn
field-file-type = ‘{ $label }’ moet een van deze soorten zijn: { $types }
field-file-extension = ‘{ $label }’ moet een bestandsextensie hebben
field-file-content = ‘{ $label }’ lijkt geen .{ $claimed }-bestand
file-kept = Het gekozen bestand behouden: { $name } ({ $size })
quiz-score = Uw score: { $score } van { $max } punten
