answers-heading = Twoje odpowiedzi
why = Otrzymujesz tę wiadomość, ponieważ ten adres podano w odpowiedzi na formularz „{ $form }”. Jeśli to nie Ty, możesz ją zignorować; nie przyjdą kolejne.
no-answer = (brak odpowiedzi)
file = { $name } (plik)
yes = Tak
no = Nie
