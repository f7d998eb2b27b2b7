answers-heading = As suas respostas
why = Recebe este e-mail porque este endereço foi indicado numa resposta ao formulário «{ $form }». Se não foi você, pode ignorá-lo; não seguirão mais e-mails.
no-answer = (sem resposta)
file = { $name } (ficheiro)
yes = Sim
no = Não
