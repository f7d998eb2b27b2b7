answers-heading = Vos réponses
why = Vous recevez ce message parce que cette adresse a été indiquée dans une réponse au formulaire « { $form } ». Si ce n’était pas vous, vous pouvez l’ignorer ; aucun autre message ne suivra.
no-answer = (pas de réponse)
file = { $name } (fichier)
yes = Oui
no = Non
