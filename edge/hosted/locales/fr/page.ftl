# Les mots propres de la page du formulaire, en français (modèle : locales/en/page.ftl).

## Boutons et cadre de la page

next = Suivant
back = Retour
submit = Envoyer
choose = Choisir…
other = Autre
other-specify = Autre (veuillez préciser)
required = (obligatoire)
leave-empty = Laisser vide
stars =
    { $n ->
        [one] { $n } étoile
       *[other] { $n } étoiles
    }
steps = Page { $position } sur { $pages }
steps-title = { $title } (page { $position } sur { $pages })
questions = Question { $position } sur { $pages }
questions-title = { $title } (question { $position } sur { $pages })
language = Langue

## « Continuer plus tard »

later-title = Continuer plus tard
later-text = Vos réponses sont enregistrées. Pour revenir à ce formulaire plus tard ou sur un autre appareil, gardez ce lien :
later-copy = Votre lien pour continuer

## Vérification anti-robots

pow-noscript = Ce formulaire a besoin de JavaScript pour être envoyé : votre navigateur résout une petite énigme qui montre qu’il n’est pas un robot, sans aucun tiers. Veuillez activer JavaScript pour cette page.
pow-missing = Ce formulaire a besoin de JavaScript pour être envoyé : votre navigateur résout une petite énigme qui montre qu’il n’est pas un robot. Vos réponses sont conservées : activez JavaScript et envoyez de nouveau.
pow-expired = La vérification anti-robots de cette page avait expiré ou a déjà servi. Vos réponses sont conservées : veuillez envoyer de nouveau.
pow-checking = Vérification que c’est un navigateur, et non un robot, qui envoie ce formulaire. L’envoi sera prêt dans un instant.
pow-failed = Cette page n’a pas pu terminer sa vérification anti-robots. Veuillez la recharger.
pow-ready = Prêt à envoyer.

## Après l’envoi

fix-below = Veuillez corriger les champs signalés ci-dessous.
page-expired = Cette page avait expiré. Vos réponses sont conservées : veuillez envoyer de nouveau.
thanks-title = Merci
thanks-text = Votre réponse a été enregistrée.
sent-title = Réponse envoyée

## Pages d’erreur

not-found-title = Formulaire introuvable
not-found-text = Il n’y a pas de formulaire ouvert à cette adresse.
closed-title = Ce formulaire est fermé
closed-text = Il n’accepte plus de réponses.
limit-title = Ce formulaire n’accepte pas de réponses
limit-text = Son propriétaire a atteint sa limite de réponses.
partials-title = Vos réponses n’ont pas pu être enregistrées pour plus tard
partials-text = Ce formulaire garde déjà autant de réponses inachevées qu’il le peut. Revenez en arrière et envoyez vos réponses maintenant, ou réessayez de les enregistrer plus tard.
rate-title = Trop d’envois
rate-text = Veuillez patienter une minute et réessayer.
failed-title = Une erreur s’est produite
failed-text = Veuillez réessayer dans un instant (identifiant de requête { $id }).

## Un problème avec une réponse : { $label } est l’intitulé de la question

field-required = « { $label } » est obligatoire
field-too-long = « { $label } » doit faire au plus { $max } caractères
field-not-text = « { $label } » doit être un texte
field-email = « { $label } » doit être une adresse e-mail
field-number = « { $label } » doit être un nombre
field-at-least = « { $label } » doit valoir au moins { $min }
field-at-most = « { $label } » doit valoir au plus { $max }
field-whole-number = « { $label } » doit être un nombre entier de { $min } à { $max }
field-date = « { $label } » doit être une date écrite AAAA-MM-JJ
field-not-before = « { $label } » ne doit pas être avant le { $date }
field-not-after = « { $label } » ne doit pas être après le { $date }
field-url = « { $label } » doit être une adresse http ou https d’au plus { $max } caractères
field-phone = « { $label } » doit être un numéro de téléphone au format international, commençant par + et l’indicatif du pays
field-ticked = « { $label } » doit être coché
field-option = « { $label } » doit être l’un des choix proposés
field-options = « { $label } » doit faire partie des choix proposés
field-other-text = « { $label } » : précisez « Autre » en 1 à { $max } caractères
field-tick-at-least = « { $label } » : cochez au moins { $min } options
field-tick-at-most = « { $label } » : cochez au plus { $max } options
field-one-file = « { $label } » accepte un seul fichier
field-empty-file = « { $label } » est un fichier vide
field-file-too-big = « { $label } » doit faire au plus { $mb } Mo
field-file-type = « { $label } » doit être l’un de ces types : { $types }
field-file-extension = « { $label } » doit avoir une extension de fichier
field-file-content = « { $label } » ne ressemble pas à un fichier .{ $claimed }
file-kept = Garder le fichier choisi : { $name } ({ $size })
quiz-score = Votre score : { $score } sur { $max } points
