answers-heading = Le tue risposte
why = Ricevi questa email perché questo indirizzo è stato indicato in una risposta al modulo «{ $form }». Se non sei stato tu, puoi ignorarla; non ne seguiranno altre.
no-answer = (nessuna risposta)
file = { $name } (file)
yes = Sì
no = No
