# The hosted form page's own words, in English: the reference every other language
# follows (one file per language, locales/<tag>/page.ftl, same message names).
# Placeables: { $name } is filled in by the page; keep them, move them as your
# language needs. The form's own texts (title, questions, options) are the owner's.

## Buttons and the page's frame

next = Next
back = Back
submit = Submit
# The empty first entry of a dropdown.
choose = Choose…
other = Other
other-specify = Other (please specify)
# Read by screen readers after a group of checkboxes that must be answered.
required = (required)
# A trap field for robots, hidden from people.
leave-empty = Leave empty
# The name of one star of a rating, for screen readers.
stars =
    { $n ->
        [one] { $n } star
       *[other] { $n } stars
    }
steps = Page { $position } of { $pages }
steps-title = { $title } (page { $position } of { $pages })
# One question at a time: each step is one question, so it is counted as one.
questions = Question { $position } of { $pages }
questions-title = { $title } (question { $position } of { $pages })
language = Language

## "Continue later"

later-title = Continue later
later-text = Your answers so far are saved. To come back to this form later or on another device, keep this link:
later-copy = Your link to continue

## The check against robots (proof of work)

pow-noscript = This form needs JavaScript to be sent: your browser solves a small puzzle that shows it is not a robot, with no third party involved. Please turn JavaScript on for this page.
pow-missing = This form needs JavaScript to be sent: your browser solves a small puzzle that shows it is not a robot. Your answers are kept: please turn JavaScript on and submit again.
pow-expired = This page's check against robots had expired or was used already. Your answers are kept: please submit again.
pow-checking = Checking that a browser, not a robot, sends this form. Submit is ready in a moment.
pow-failed = This page could not finish its check against robots. Please reload it.
pow-ready = Ready to submit.

## After submitting

fix-below = Please correct the fields marked below.
page-expired = This page had expired. Your answers are kept: please submit again.
thanks-title = Thank you
thanks-text = Your response was recorded.
sent-title = Response sent

## Error pages

not-found-title = Form not found
not-found-text = There is no open form at this address.
closed-title = This form is closed
closed-text = It no longer accepts responses.
limit-title = This form is not accepting responses
limit-text = Its owner has reached their response limit.
partials-title = Your answers could not be saved for later
partials-text = This form is holding as many unfinished responses as it can. Go back and submit your answers now, or try saving them again later.
rate-title = Too many submissions
rate-text = Please wait a minute and try again.
failed-title = Something went wrong
failed-text = Please try again shortly (request id { $id }).

## A problem with one answer: { $label } is the question's label

field-required = { $label } is required
field-too-long = { $label } must be at most { $max } characters
field-not-text = { $label } must be a string
field-email = { $label } must be an email address
field-number = { $label } must be a number
field-at-least = { $label } must be at least { $min }
field-at-most = { $label } must be at most { $max }
field-whole-number = { $label } must be a whole number from { $min } to { $max }
field-date = { $label } must be a date written YYYY-MM-DD
field-not-before = { $label } must not be before { $date }
field-not-after = { $label } must not be after { $date }
field-url = { $label } must be an http or https address, at most { $max } characters
field-phone = { $label } must be a phone number in international form, starting with + and the country code
field-ticked = { $label } must be ticked
field-option = { $label } must be one of the choices offered
field-options = { $label } must be among the choices offered
field-other-text = { $label }: say what "Other" is, in 1 to { $max } characters
field-tick-at-least = { $label } must tick at least { $min } options
field-tick-at-most = { $label } must tick at most { $max } options
field-one-file = { $label } takes one file
field-empty-file = { $label } is an empty file
field-file-too-big = { $label } must be at most { $mb } MB
field-file-type = { $label } must be one of: { $types }
field-file-extension = { $label } must have a file extension
field-file-content = { $label } does not look like a .{ $claimed } file
file-kept = Keep the file you chose: { $name } ({ $size })
quiz-score = Your score: { $score } of { $max } points
