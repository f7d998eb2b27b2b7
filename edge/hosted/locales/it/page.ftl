# Le parole proprie della pagina del modulo, in italiano (modello: locales/en/page.ftl).

## Pulsanti e cornice della pagina

next = Avanti
back = Indietro
submit = Invia
choose = Scegli…
other = Altro
other-specify = Altro (specificare)
required = (obbligatorio)
leave-empty = Lasciare vuoto
stars =
    { $n ->
        [one] { $n } stella
       *[other] { $n } stelle
    }
steps = Pagina { $position } di { $pages }
steps-title = { $title } (pagina { $position } di { $pages })
questions = Domanda { $position } di { $pages }
questions-title = { $title } (domanda { $position } di { $pages })
language = Lingua

## «Continua più tardi»

later-title = Continua più tardi
later-text = Le risposte date finora sono salvate. Per tornare a questo modulo più tardi o da un altro dispositivo, conserva questo link:
later-copy = Il tuo link per continuare

## Controllo contro i robot

pow-noscript = Questo modulo ha bisogno di JavaScript per essere inviato: il browser risolve un piccolo enigma che dimostra che non è un robot, senza terze parti. Attiva JavaScript per questa pagina.
pow-missing = Questo modulo ha bisogno di JavaScript per essere inviato: il browser risolve un piccolo enigma che dimostra che non è un robot. Le risposte sono conservate: attiva JavaScript e invia di nuovo.
pow-expired = Il controllo contro i robot di questa pagina era scaduto o già usato. Le risposte sono conservate: invia di nuovo.
pow-checking = Verifica che a inviare questo modulo sia un browser e non un robot. L’invio sarà pronto tra un attimo.
pow-failed = Questa pagina non è riuscita a completare il controllo contro i robot. Ricaricala.
pow-ready = Pronto per l’invio.

## Dopo l’invio

fix-below = Correggi i campi segnalati qui sotto.
page-expired = Questa pagina era scaduta. Le risposte sono conservate: invia di nuovo.
thanks-title = Grazie
thanks-text = La tua risposta è stata registrata.
sent-title = Risposta inviata

## Pagine di errore

not-found-title = Modulo non trovato
not-found-text = Non c’è nessun modulo aperto a questo indirizzo.
closed-title = Questo modulo è chiuso
closed-text = Non accetta più risposte.
limit-title = Questo modulo non accetta risposte
limit-text = Il proprietario ha raggiunto il limite di risposte.
partials-title = Non è stato possibile salvare le risposte per dopo
partials-text = Questo modulo conserva già tutte le risposte incomplete che può. Torna indietro e invia ora le risposte, oppure riprova a salvarle più tardi.
rate-title = Troppi invii
rate-text = Attendi un minuto e riprova.
failed-title = Qualcosa è andato storto
failed-text = Riprova tra poco (id della richiesta { $id }).

## Un problema con una risposta: { $label } è l’etichetta della domanda

field-required = «{ $label }» è obbligatorio
field-too-long = «{ $label }» deve avere al massimo { $max } caratteri
field-not-text = «{ $label }» deve essere un testo
field-email = «{ $label }» deve essere un indirizzo email
field-number = «{ $label }» deve essere un numero
field-at-least = «{ $label }» deve essere almeno { $min }
field-at-most = «{ $label }» deve essere al massimo { $max }
field-whole-number = «{ $label }» deve essere un numero intero da { $min } a { $max }
field-date = «{ $label }» deve essere una data scritta AAAA-MM-GG
field-not-before = «{ $label }» non può essere prima del { $date }
field-not-after = «{ $label }» non può essere dopo il { $date }
field-url = «{ $label }» deve essere un indirizzo http o https di al massimo { $max } caratteri
field-phone = «{ $label }» deve essere un numero di telefono in formato internazionale, che inizia con + e il prefisso del paese
field-ticked = «{ $label }» deve essere spuntato
field-option = «{ $label }» deve essere una delle scelte proposte
field-options = «{ $label }» deve essere tra le scelte proposte
field-other-text = «{ $label }»: specifica «Altro» con 1–{ $max } caratteri
field-tick-at-least = «{ $label }»: spunta almeno { $min } opzioni
field-tick-at-most = «{ $label }»: spunta al massimo { $max } opzioni
field-one-file = «{ $label }» accetta un solo file
field-empty-file = «{ $label }» è un file vuoto
field-file-too-big = «{ $label }» deve essere al massimo di { $mb } MB
field-file-type = «{ $label }» deve essere di uno di questi tipi: { $types }
field-file-extension = «{ $label }» deve avere un’estensione
field-file-content = «{ $label }» non sembra un file .{ $claimed }
file-kept = Mantieni il file scelto: { $name } ({ $size })
quiz-score = Il tuo punteggio: { $score } su { $max } punti
