# The Trajectory's step label, under the column "step" (§14.5).
tui-traj-step-label = T{ $turn }.S{ $step }

# The inspector's account of where a request differs (§14.5), numbered from 1.
tui-inspector-appended-tools = Appended: the tool list gained entry { $index } ({ $name }), deferred, which the provider reads after the cached prefix; the prefix is kept.
tui-inspector-appended-message = Appended: new history from message { $index } on; the prefix before it is kept.
tui-inspector-diverges-message-n = First difference: message { $index } (byte { $offset } of the body).
