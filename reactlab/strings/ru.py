"""Русская таблица. К модели обращаемся на «ты», как в системном промпте статьи; к читателю — на «вы».

Числа стоят после двоеточия («вызовов модели: 5»), чтобы не согласовывать слова с числом.
"""

from __future__ import annotations

from .shape import AgentTexts, CliTexts, ExerciseTexts, LocalServerTexts, ResultTexts, SchemeTexts, Strings, ToolTexts

__all__ = ["RU"]

RU = Strings(
    tools=ToolTexts(
        invalid_arguments="{tool}: аргументы не подходят под схему: {message}{where}{more}",
        invalid_at=" (место: {path})",
        more_problems=" (и других проблем: {count})",
        elided="{head} … (вырезано символов: {count}) … {tail}",
        path_empty="Путь должен быть непустой строкой.",
        path_nul="В пути есть нулевой байт (NUL).",
        path_absolute="Нужен путь относительно корня проекта, а не {path}.",
        path_outside="Путь {path} ведёт за пределы проекта.",
        read_file_description="Прочитать один текстовый файл проекта. Путь указывается от корня проекта.",
        is_folder="{path} — это папка, а не файл.",
        no_such_file="Файла {path} нет.",
        too_large="Файл {path} слишком большой: {size} байт при пределе {limit}.",
        too_large_over="Файл {path} слишком большой: больше {limit} байт.",
        not_utf8_nul="{path} — не текстовый файл в UTF-8: в нём есть нулевой байт.",
        not_utf8_byte="{path} — не текстовый файл в UTF-8: недопустимый байт по смещению {offset}.",
        edit_description=(
            "Заменить в файле проекта один точный фрагмент. old_text должен встречаться в файле ровно один раз; "
            "копируй его вместе с отступами. Путь указывается от корня проекта."
        ),
        edit_old_text="Точный текст, который нужно заменить.",
        edit_new_text="Текст, который встанет на его место.",
        edit_read_only="{path} в этом запуске доступен только для чтения; исправляй реализацию.",
        edit_not_a_file="Файла {path} нет.",
        edit_empty_old_text="old_text пустой: укажи точный фрагмент, который нужно заменить.",
        edit_nul_in_new_text="В new_text есть нулевой байт, а файл должен остаться текстовым.",
        edit_not_found=(
            "old_text не найден в {path}, а должен встретиться ровно один раз. "
            "Перечитай файл и скопируй фрагмент вместе с соседними строками, чтобы он стал уникальным."
        ),
        edit_not_unique=(
            "old_text встречается в {path} несколько раз (вхождений: {count}), а должен ровно один. "
            "Перечитай файл и скопируй фрагмент вместе с соседними строками, чтобы он стал уникальным."
        ),
        edit_too_large="После правки в {path} стало бы {size} байт, а предел {limit}.",
        bash_description=(
            "Выполнить команду bash в изолированной копии проекта (текущая папка /work, сети нет). "
            "Возвращает exit_code, stdout и stderr; вывод длиннее {limit} байт обрезается. "
            "exit_code — код последней команды в конвейере."
        ),
        bash_timeout="Через сколько секунд остановить команду (по умолчанию {default}).",
        bash_empty="bash: команда пустая.",
        bash_nul="bash: в команде есть нулевой байт.",
        bash_not_text="bash: команда — не текст Unicode (одиночный суррогат в символе {position}).",
        bash_timed_out="Остановлено через {timeout} с; все запущенные командой процессы завершены.",
        bash_setup_failed="Не удалось подготовить песочницу: {detail}",
        replayed_note="воспроизведено из кассеты, на этой машине не запускалось",
        sandbox_unavailable=(
            "Не выполнено: на этой машине нет песочницы, а на самом хосте bash не запускается никогда.{detail} {reason}"
        ),
        replay_failed=" Кассета воспроизводила этот вызов, но {problem}.",
        recorded_call="вызова {call_id} из обмена {interaction}",
        no_observation="в ней нет результата {call} (в следующем запросе нет отвечающего ему сообщения tool)",
        observation_too_long="записанный результат {call} слишком длинный: {length} символов при пределе {limit}",
        observation_not_object="записанный результат {call} — не объект JSON",
    ),
    agent=AgentTexts(
        arguments_not_json="Аргументы не разбираются как JSON: {detail}",
        arguments_not_object="Аргументы должны быть объектом JSON, а не {kind}.",
        tool_not_offered="Инструмента {name} среди предложенных нет. Предложены: {offered}.",
        nothing_offered="ни одного",
        tool_failed="Инструмент завершился с ошибкой: {kind}: {detail}",
        result_not_object="Инструмент {name} вернул {kind}, а не объект.",
        result_not_json="Инструмент {name} вернул результат, который не записать в JSON.",
    ),
    results=ResultTexts(
        replayed="воспроизведено, на этой машине не запускалось",
        sandbox_unavailable="песочницы нет",
        timed_out="время вышло",
        truncated="обрезано",
        repaired="исправлено: {text}",
        error="ошибка: {error}",
        failed="не удалось",
        characters="символов: {count}",
    ),
    cli=CliTexts(
        model_call="[вызов модели {number}] {asked}",
        asked_tools="вызовов инструментов: {count}",
        asked_answer="финальный ответ",
        working_copy="рабочая копия: {path}",
        answer="ответ:",
        stopped="остановлено: {reason}: {error}",
        totals="вызовов модели: {calls}, выполнений инструментов: {executions}",
        independent_run="независимый прогон тестов: {summary}",
        rerun_result="{verdict} (код выхода {code})",
        rerun_not_run="здесь не запускался: {error}",
        changes="что изменил запуск (+ добавлено, - удалено, ~ изменено):",
        unchanged="не изменён",
        changed="ИЗМЕНЁН",
        copy_removed="рабочая копия удалена (--discard): {path}",
        copy_kept="рабочая копия сохранена: {path}",
        copy_diff="  что изменилось:   diff -ru --no-dereference {project} {copy} | cat -v",
        changes_more="  … и ещё {count}",
        copy_remove="  удалить её:       rm -r {copy}   (или запустите с --discard)",
    ),
    local_server=LocalServerTexts(
        not_built="llama-server на этой машине не собран: выполните один раз `make llama-server` (около 10 минут).",
        model_missing=(
            "llama-server собран, но его крошечной тестовой модели нет или она устарела: выполните `make llama-server`."
        ),
    ),
    schemes=SchemeTexts(
        waiting="ждём ответа…",
        no_answer="ответа нет: {reason}",
        one_tool_call="1 вызов инструмента: {names}",
        tool_calls="вызовы инструментов ({count}): {names}",
        answer_cut_off="ответ оборван (finish_reason length)",
        final_answer="финальный ответ: {text}",
        empty_answer="пустой ответ: ни текста, ни вызовов инструментов",
        verdict_exit_code="{verdict} · код выхода {code}",
        exit_code="код выхода {code}",
        edited="файл изменён",
        bytes_read="прочитано байт: {size}",
        loop_title="Схема 1 · Цикл агента",
        loop_aria="Цикл агента на шаге {step}",
        loop_task="Задача",
        loop_agent="Агент (цикл)",
        loop_model="Модель",
        loop_tools="Инструменты",
        loop_answer="Ответ",
        loop_edge_task="задача",
        loop_edge_request="messages + tools",
        loop_edge_reply="tool_calls или текст",
        loop_edge_execute="выполнить",
        loop_edge_result="результат → история",
        loop_edge_answer="непустой текст",
        loop_model_counter="вызов {step} из {count} (предел {limit})",
        loop_tools_counter="выполнено: {count} (предел {limit})",
        loop_caption="Шаг {step}: модель вернула {happened}.",
        loop_stopped=" Здесь запуск остановился: {reason}.",
        loop_name="Схема 1: цикл на шаге {step}",
        sequence_title_one="Схема 2 · Один вызов инструмента, вызов модели {step}",
        sequence_title_many="Схема 2 · Вызовов инструментов в одном ответе: {count}; вызов модели {step}",
        sequence_model="Модель",
        sequence_agent="Агент (управляющая часть)",
        sequence_tool="Инструмент",
        sequence_request="POST /chat/completions: сообщений {messages}, описаний инструментов {tools}",
        sequence_reply="tool_calls: {names} (аргументы приходят строкой JSON), id",
        sequence_validate=(
            "проверка: id на месте и не повторяются, аргументы — строка → json.loads → объект; найти инструмент"
        ),
        sequence_result="результат: {outcome}",
        sequence_next_request=(
            "запрос {number}: сообщение assistant, за ним сообщения tool с tool_call_id (их {count})"
        ),
        sequence_name="Схема 2: один вызов инструмента",
        history_title="Схема 3 · Что уходит в запрос {step}",
        history_lead=(
            "Запрос {step}: сообщений {count}, из них новых с запроса {previous} — {new} ({yellow} {swatch}, "
            "с пометкой НОВОЕ). Описания инструментов идут отдельно, в поле {tools_field}: {tools}."
        ),
        history_lead_first=(
            "Запрос {step}: сообщений {count}, все новые ({yellow} {swatch}, с пометкой НОВОЕ). Описания "
            "инструментов идут отдельно, в поле {tools_field}: {tools}."
        ),
        history_yellow="жёлтые",
        history_answers="отвечает на",
        history_no_such_call="(такого вызова нет)",
        history_new="НОВОЕ",
        history_cache=" (из кэша {hit}, мимо кэша {miss})",
        history_estimated=" · оценка офлайн",
        history_name="Схема 3: история к запросу {step}",
        stopping_title="Схема 4 · Когда агент останавливается",
        stopping_aria="Когда агент останавливается",
        stopping_answered="вызов модели k\nвернул ответ",
        stopping_usable="ответ годится?\nцелый и верный",
        stopping_broken="ошибка:\n{reason}",
        stopping_broken_reasons="API, обрыв, формат",
        stopping_has_calls="есть tool_calls?",
        stopping_has_text="есть текст?",
        stopping_final="финальный ответ",
        stopping_empty="ошибка:\nпустой ответ",
        stopping_within="в пределах\nmax_tool_calls?",
        stopping_tool_limit="стоп:\nпредел вызовов\nинструментов",
        stopping_run_tools="выполнить\nвызовы, внести\nрезультаты",
        stopping_steps_left="вызовы модели\nещё остались?",
        stopping_step_limit="стоп:\nпредел шагов",
        stopping_yes="да",
        stopping_no="нет",
        stopping_next_call="да: вызов k+1",
        stopping_ended_answer="финальный ответ",
        stopping_ended_limit="остановка по пределу ({reason})",
        stopping_ended_error="ошибка ({reason})",
        stopping_caption=(
            "Этот запуск: вызовов модели {calls} (предел {max_steps}), выполнений инструментов {executions} "
            "(предел {max_tool_calls}); итог — {verdict}. {answer} ответ · {limit} предел · {error} ошибка"
        ),
        stopping_name="Схема 4: остановка, итог: {reason}",
        route_title="Схема 5 · Маршрут запуска",
        route_counts=(
            "вызовов модели: {calls} · выполнений инструментов: {executions} · {model} что вернула модель · "
            "{tool} выполненный инструмент"
        ),
        route_this_step=" ◀ этот шаг",
        route_stopped="остановка: {reason}",
        route_name="Схема 5: маршрут, вызовов модели: {count}",
        step_title="Шаг {step} из {steps}",
        request_json="JSON запроса (ровно то, что ушло)",
        response_json="JSON ответа (ровно то, что пришло)",
        request_shown_before="сообщения [{first}]–[{last}]: как на шаге {step}",
        request_one_shown_before="сообщение [{index}]: как на шаге {step}",
        request_shown_here=(
            "сообщения [{first}]–[{last}]: в схеме 3 выше; щёлкните по сообщению, чтобы увидеть его JSON"
        ),
        request_one_shown_here="сообщение [{index}]: в схеме 3 выше; щёлкните по нему, чтобы увидеть JSON",
        request_tools_before="как на шаге {step}",
        history_shown_before="как на шаге {step}",
        show_more="показать ещё: {count} симв.",
        left_out="… дальше здесь не показано; целиком всё есть в записи запуска",
        viewer_title="Просмотр запуска · {state}",
        viewer_running="идёт",
        viewer_static="Статичный вид: раскройте шаг. Чтобы листать шаги ползунком, запустите блокнот.",
        viewer_step="шаг {step}",
        viewer_slider="шаг",
        viewer_previous="◀ назад",
        viewer_next="вперёд ▶",
        student_final="(финальный ответ)",
        student_reply="ответ",
        student_arguments="аргументы",
        student_answer="текст",
        student_send="отправить как модель",
        student_waiting="Запрос {number} ждёт вас: выберите инструмент или напишите финальный ответ.",
        student_finished="Готово: финальный ответ получен, вызовов модели: {calls}.",
        student_stopped="Запуск остановлен: {reason}: {error}",
        student_needs_kernel=(
            "Этому виджету нужно работающее ядро: ваш ответ уходит агенту в ядре, и тот выполняет инструмент. "
            "На статичной странице (GitHub, nbviewer) кнопка ничего не делает — запустите блокнот, чтобы поучаствовать."
        ),
    ),
    exercises=ExerciseTexts(
        solved="✓ решено: {detail}",
        not_solved="✗ пока не решено: {detail}",
        not_quite="✗ почти: {detail}",
        almost="✗ почти: {detail}",
        cannot_check="? на этой машине не проверить: {detail}",
        mode_unset="задайте MODE",
        mode_wrong="ещё раз прочитайте в отчёте строку sandbox",
        mode_solved="на этой машине курс идёт в режиме {mode}",
        line_count_schema="в схеме нужны обязательный параметр 'path' и additionalProperties: false",
        line_count_enum="для 'path' нужен enum из SHOP_FILES",
        line_count_wrong="агент получил {result}, а ожидалось lines={expected}",
        line_count_solved="агент вызвал count_lines и получил число строк: {expected}",
        history_shop_run="запуск с магазином",
        history_scripted_run="сценарный запуск",
        history_wrong="{run} {calls}, запрос {number}: по вашей формуле сообщений {said}, а ушло {sent}",
        history_solved="ваша формула даёт длину каждого запроса в обоих запусках",
        limit_answered="запуск закончился финальным ответом",
        limit_other_stop="запуск остановился по причине {reason}, а не tool_call_limit",
        limit_calls="вызовов модели: {count}, а хватит одного",
        limit_solved="один вызов модели и отказ ещё до того, как сработал хоть один инструмент",
        verified_no_sandbox="verified() нужна песочница, чтобы прогнать тесты",
        verified_liar="в копии «лжеца» тесты по-прежнему падают, а verified() ответила True",
        verified_fix="настоящее исправление проходит тесты, а verified() ответила False",
        verified_solved="verified() принимает настоящее исправление и отвергает голое заявление",
        unchanged_no_sandbox="здесь нет песочницы, в которой можно выполнить команды",
        unchanged_state_same="не изменился",
        unchanged_state_changed="изменился",
        unchanged_wrong="после {command!r} файл {path} {state}, а ваша функция вернула {said}",
        unchanged_solved="вы судите о каждой команде по тому, что стало с файлом, а не по коду выхода",
        hand_made_failed="кассета не воспроизводится: {error}",
        hand_made_answer="получен ответ {answer!r}",
        hand_made_solved="ваша кассета воспроизводится и даёт ответ 'hello'",
        quiz_unanswered="· {question}: ответа пока нет",
        quiz_right="✓ {question}: верно",
        quiz_wrong="✗ {question}: не этот ответ ({given!r}); перечитайте вопрос",
        quiz_solved="все ответы верны ({count} из {count})",
        quiz_not_solved="верных ответов: {right} из {count}",
        loop_task="Воспользуйся инструментом tally, потом ответь.",
        loop_case_shop="запуск с магазином (сценарная кассета, результаты инструментов воспроизводятся)",
        loop_case_empty="пустой ответ",
        loop_case_step_limit="предел шагов (max_steps={max_steps})",
        loop_case_tool_limit=(
            "предел вызовов инструментов (max_tool_calls={max_tool_calls}; ответы просят 2, 2, затем 1)"
        ),
        loop_case_duplicate_id="один id дважды в одном ответе",
        loop_case_agrees="✓ {case}: истории совпали (сообщений: {count}), оба цикла завершились так: {ending}",
        loop_first_difference=(
            "первое расхождение — в сообщении {index} (в истории агента сообщений: {agent}, в вашей: {yours})"
        ),
        loop_other_ending="сообщения совпали (их {count}), но концовки разные: у агента {agent}, у вас {yours}",
        loop_agent_message="у агента: {message}",
        loop_your_message="у вас:    {message}",
        loop_no_message="(сообщения нет)",
        loop_stub="ваш цикл бросает NotImplementedError (это заготовка). Напишите его в ячейке выше.",
        loop_solved="ваш цикл и агент согласны во всех случаях ({count} из {count})",
        loop_not_solved="совпало случаев: {matched} из {count}",
    ),
)
