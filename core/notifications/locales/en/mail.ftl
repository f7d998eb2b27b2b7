# Words of the confirmation mail a respondent gets (core/notifications/confirm.rs).
# The owner's subject and text come first; these frame the answers below them.
answers-heading = Your answers
why = You are getting this mail because this address was given in a response to the form “{ $form }”. If that was not you, you may ignore it; no more mails follow from it.
no-answer = (no answer)
file = { $name } (file)
yes = Yes
no = No
