# As palavras próprias da página do formulário, em português (modelo: locales/en/page.ftl).

## Botões e moldura da página

next = Seguinte
back = Voltar
submit = Enviar
choose = Escolher…
other = Outro
other-specify = Outro (especifique)
required = (obrigatório)
leave-empty = Deixar em branco
stars =
    { $n ->
        [one] { $n } estrela
       *[other] { $n } estrelas
    }
steps = Página { $position } de { $pages }
steps-title = { $title } (página { $position } de { $pages })
questions = Pergunta { $position } de { $pages }
questions-title = { $title } (pergunta { $position } de { $pages })
language = Idioma

## «Continuar mais tarde»

later-title = Continuar mais tarde
later-text = As suas respostas até agora estão guardadas. Para voltar a este formulário mais tarde ou noutro dispositivo, guarde este link:
later-copy = O seu link para continuar

## Verificação contra robôs

pow-noscript = Este formulário precisa de JavaScript para ser enviado: o seu navegador resolve um pequeno enigma que mostra que não é um robô, sem terceiros. Ative o JavaScript nesta página.
pow-missing = Este formulário precisa de JavaScript para ser enviado: o seu navegador resolve um pequeno enigma que mostra que não é um robô. As suas respostas foram mantidas: ative o JavaScript e envie de novo.
pow-expired = A verificação contra robôs desta página tinha expirado ou já tinha sido usada. As suas respostas foram mantidas: envie de novo.
pow-checking = A verificar que é um navegador, e não um robô, a enviar este formulário. O envio estará pronto num instante.
pow-failed = Esta página não conseguiu concluir a verificação contra robôs. Recarregue-a.
pow-ready = Pronto para enviar.

## Depois de enviar

fix-below = Corrija os campos assinalados abaixo.
page-expired = Esta página tinha expirado. As suas respostas foram mantidas: envie de novo.
thanks-title = Obrigado
thanks-text = A sua resposta foi registada.
sent-title = Resposta enviada

## Páginas de erro

not-found-title = Formulário não encontrado
not-found-text = Não há nenhum formulário aberto neste endereço.
closed-title = Este formulário está fechado
closed-text = Já não aceita respostas.
limit-title = Este formulário não está a aceitar respostas
limit-text = O seu proprietário atingiu o limite de respostas.
partials-title = Não foi possível guardar as suas respostas para mais tarde
partials-text = Este formulário já guarda tantas respostas por terminar quantas pode. Volte atrás e envie as suas respostas agora, ou tente guardá-las mais tarde.
rate-title = Demasiados envios
rate-text = Aguarde um minuto e tente de novo.
failed-title = Algo correu mal
failed-text = Tente de novo dentro de instantes (id do pedido { $id }).

## Um problema com uma resposta: { $label } é o rótulo da pergunta

field-required = «{ $label }» é obrigatório
field-too-long = «{ $label }» deve ter no máximo { $max } caracteres
field-not-text = «{ $label }» deve ser um texto
field-email = «{ $label }» deve ser um endereço de email
field-number = «{ $label }» deve ser um número
field-at-least = «{ $label }» deve ser pelo menos { $min }
field-at-most = «{ $label }» deve ser no máximo { $max }
field-whole-number = «{ $label }» deve ser um número inteiro de { $min } a { $max }
field-date = «{ $label }» deve ser uma data escrita AAAA-MM-DD
field-not-before = «{ $label }» não pode ser antes de { $date }
field-not-after = «{ $label }» não pode ser depois de { $date }
field-url = «{ $label }» deve ser um endereço http ou https com no máximo { $max } caracteres
field-phone = «{ $label }» deve ser um número de telefone em formato internacional, começando por + e o indicativo do país
field-ticked = «{ $label }» deve estar assinalado
field-option = «{ $label }» deve ser uma das opções oferecidas
field-options = «{ $label }» deve estar entre as opções oferecidas
field-other-text = «{ $label }»: indique «Outro» com 1 a { $max } caracteres
field-tick-at-least = «{ $label }»: assinale pelo menos { $min } opções
field-tick-at-most = «{ $label }»: assinale no máximo { $max } opções
field-one-file = «{ $label }» aceita um só ficheiro
field-empty-file = «{ $label }» é um ficheiro vazio
field-file-too-big = «{ $label }» deve ter no máximo { $mb } MB
field-file-type = «{ $label }» deve ser de um destes tipos: { $types }
field-file-extension = «{ $label }» deve ter uma extensão de ficheiro
field-file-content = «{ $label }» não parece um ficheiro .{ $claimed }
file-kept = Manter o ficheiro escolhido: { $name } ({ $size })
quiz-score = A sua pontuação: { $score } de { $max } pontos
