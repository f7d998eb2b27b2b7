# フォームページ自身の言葉（日本語）。元になるのは locales/en/page.ftl です。

## ボタンとページの枠

next = 次へ
back = 戻る
submit = 送信
choose = 選択してください…
other = その他
other-specify = その他（具体的に）
required = （必須）
leave-empty = 空欄のままにしてください
stars = 星{ $n }つ
steps = { $position } / { $pages } ページ
steps-title = { $title }（{ $position } / { $pages } ページ）
questions = 質問 { $position } / { $pages }
questions-title = { $title }（質問 { $position } / { $pages }）
language = 言語

## 「後で続ける」

later-title = 後で続ける
later-text = ここまでの回答は保存されています。後で、または別の端末でこのフォームに戻るには、このリンクを保管してください:
later-copy = 続きのためのリンク

## ロボット対策の確認

pow-noscript = このフォームの送信には JavaScript が必要です。ブラウザーが小さなパズルを解いてロボットではないことを示します（第三者は関与しません）。このページで JavaScript を有効にしてください。
pow-missing = このフォームの送信には JavaScript が必要です。ブラウザーが小さなパズルを解いてロボットではないことを示します。回答は保持されています。JavaScript を有効にしてもう一度送信してください。
pow-expired = このページのロボット対策の確認は期限切れか、すでに使用済みでした。回答は保持されています。もう一度送信してください。
pow-checking = このフォームを送信しているのがロボットではなくブラウザーであることを確認しています。まもなく送信できます。
pow-failed = このページはロボット対策の確認を完了できませんでした。再読み込みしてください。
pow-ready = 送信できます。

## 送信後

fix-below = 下の印の付いた項目を修正してください。
page-expired = このページは期限切れでした。回答は保持されています。もう一度送信してください。
thanks-title = ありがとうございました
thanks-text = 回答を受け付けました。
sent-title = 回答を送信しました

## エラーページ

not-found-title = フォームが見つかりません
not-found-text = このアドレスに公開中のフォームはありません。
closed-title = このフォームは締め切られました
closed-text = 回答の受け付けを終了しています。
limit-title = このフォームは回答を受け付けていません
limit-text = フォームの所有者が回答数の上限に達しました。
partials-title = 回答を一時保存できませんでした
partials-text = このフォームは保存できる未完了の回答数の上限に達しています。戻って今すぐ回答を送信するか、後でもう一度保存してください。
rate-title = 送信が多すぎます
rate-text = 1 分ほど待ってからもう一度お試しください。
failed-title = 問題が発生しました
failed-text = しばらくしてからもう一度お試しください（リクエスト ID { $id }）。

## 回答の問題: { $label } は質問の見出しです

field-required = 「{ $label }」は必須です
field-too-long = 「{ $label }」は { $max } 文字以内で入力してください
field-not-text = 「{ $label }」は文字で入力してください
field-email = 「{ $label }」にはメールアドレスを入力してください
field-number = 「{ $label }」には数値を入力してください
field-at-least = 「{ $label }」は { $min } 以上にしてください
field-at-most = 「{ $label }」は { $max } 以下にしてください
field-whole-number = 「{ $label }」は { $min } から { $max } までの整数にしてください
field-date = 「{ $label }」は YYYY-MM-DD 形式の日付にしてください
field-not-before = 「{ $label }」は { $date } 以降の日付にしてください
field-not-after = 「{ $label }」は { $date } 以前の日付にしてください
field-url = 「{ $label }」は { $max } 文字以内の http または https のアドレスにしてください
field-phone = 「{ $label }」は + と国番号で始まる国際形式の電話番号にしてください
field-ticked = 「{ $label }」にチェックを入れてください
field-option = 「{ $label }」は選択肢の中から選んでください
field-options = 「{ $label }」は選択肢の中から選んでください
field-other-text = 「{ $label }」: 「その他」の内容を 1〜{ $max } 文字で入力してください
field-tick-at-least = 「{ $label }」: { $min } つ以上選んでください
field-tick-at-most = 「{ $label }」: { $max } つまで選んでください
field-one-file = 「{ $label }」に添付できるファイルは 1 つです
field-empty-file = 「{ $label }」のファイルは空です
field-file-too-big = 「{ $label }」は { $mb } MB 以下にしてください
field-file-type = 「{ $label }」は次の種類のいずれかにしてください: { $types }
field-file-extension = 「{ $label }」のファイルには拡張子が必要です
field-file-content = 「{ $label }」は .{ $claimed } ファイルではないようです
file-kept = 選択したファイルを保持する: { $name }（{ $size }）
quiz-score = あなたの得点：{ $max } 点中 { $score } 点
