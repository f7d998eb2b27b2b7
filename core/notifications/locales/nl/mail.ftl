answers-heading = Uw antwoorden
why = U ontvangt deze e-mail omdat dit adres is opgegeven in een antwoord op het formulier ‘{ $form }’. Was u dat niet, dan kunt u deze e-mail negeren; er volgen geen andere.
no-answer = (geen antwoord)
file = { $name } (bestand)
yes = Ja
no = Nee
