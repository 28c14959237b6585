"""The web table in a real browser (headless Chromium driven by selenium): the page loads, a
person plays a whole Dou Dizhu game and a Shengji round by clicking cards and buttons, the
ranking points show on the leaderboard, and a replay steps through the recorded game.

Needs Debian's `chromium` and `chromium-driver` (`.ci/run` installs them when missing and it
runs as root); the tests are skipped, saying so, only where no browser is installed.
`OPENLANDLORD_SCREENSHOTS=DIR` saves the table, the hint and a replay as PNGs there (the
README's pictures: `OPENLANDLORD_SCREENSHOTS=docs/img pytest tests/test_web_browser.py`).
"""
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

selenium = pytest.importorskip("selenium", reason="selenium is not installed (the [test] extra)")
pytest.importorskip("uvicorn", reason="the [web] extra (uvicorn) is not installed")

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
DRIVER = shutil.which("chromedriver")
if not (CHROMIUM and DRIVER):
    pytest.skip("no headless Chromium here (chromium and chromedriver not found, and .ci/run "
                "could not install them): the browser tests are skipped", allow_module_level=True)

SHOTS = os.environ.get("OPENLANDLORD_SCREENSHOTS")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("web")
    port = free_port()
    env = {**os.environ, "OPENLANDLORD_RECORDS": str(folder / "records"),
           "OPENLANDLORD_RANKING": str(folder / "ranking.json")}
    proc = subprocess.Popen([sys.executable, "-m", "openlandlord.cli", "serve", "--port", str(port)],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(url + "/api/agents", timeout=2)
            break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError("the server did not start: " + proc.stdout.read().decode())
            time.sleep(0.3)
    yield url
    proc.terminate()
    proc.wait(timeout=30)


@pytest.fixture(scope="module")
def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--window-size=1280,1400"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


def wait_for(condition, timeout=60.0, what="the page"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def table(driver):
    return driver.find_element(By.ID, "table")


def click_move(driver, move: str, game: str) -> None:
    """Play `move` as a person would: its bid/declaration button, Pass, or its cards then Play."""
    version = table(driver).get_attribute("data-version")
    buttons = [b for b in driver.find_elements(By.CSS_SELECTOR, "#legal-buttons .legal-move")
               if b.get_attribute("data-move") == move or (move in ("", "pass") and b.text == "pass")]
    if buttons:
        buttons[0].click()
    elif move in ("", "pass"):
        driver.find_element(By.ID, "pass-btn").click()
    else:
        cards = move.split() if game == "shengji" else list(move)
        for card in cards:
            free = [c for c in driver.find_elements(By.CSS_SELECTOR, "#hand .card")
                    if c.get_attribute("data-card") == card and "selected" not in c.get_attribute("class")]
            assert free, f"no {card} left to click in the hand for {move!r}"
            free[0].click()
        driver.find_element(By.ID, "play-btn").click()
    wait_for(lambda: table(driver).get_attribute("data-version") != version, what=f"the move {move!r}")
    error = driver.find_element(By.ID, "error").text
    assert not error, f"the table refused {move!r}: {error}"


def start(driver, url, game, options, seats, seed):
    driver.get(url + "/")
    wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, "#game option"), what="the form")
    driver.execute_script(f"document.getElementById('game').value = '{game}';"
                          "document.getElementById('game').dispatchEvent(new Event('change'));")
    for name, value in options.items():
        driver.execute_script(f"document.getElementById('opt-{name}').value = '{value}';")
    for i, spec in enumerate(seats):
        driver.execute_script(f"document.getElementById('seat-{i}').value = '{spec}';")
    driver.find_element(By.ID, "seed").send_keys(str(seed))
    driver.find_element(By.ID, "start").click()
    wait_for(lambda: table(driver).get_attribute("data-version"), what="the new game")


def play_to_the_end(driver, game, limit=400, shot=None):
    for step in range(limit):
        if table(driver).get_attribute("data-done") == "true":
            return
        assert table(driver).get_attribute("data-human-to-move") == "true"
        if shot and step == 3:
            shot()
        click_move(driver, table(driver).get_attribute("data-hint"), game)
    raise AssertionError("the game did not end")


def save(driver, name):
    if SHOTS:
        os.makedirs(SHOTS, exist_ok=True)
        driver.save_screenshot(os.path.join(SHOTS, name))


def test_doudizhu_game_by_clicking_then_points_and_replay(server, browser):
    start(browser, server, "doudizhu", {"bidding": "none"}, ["human", "rule", "rule:expert"], 12)
    assert browser.find_element(By.ID, "hand").find_elements(By.CSS_SELECTOR, ".card")
    # An illegal move gets the referee's message and the game goes on.
    browser.find_element(By.ID, "pass-btn").click() if browser.find_element(By.ID, "pass-btn").is_enabled() else None
    cards = browser.find_elements(By.CSS_SELECTOR, "#hand .card")
    version = table(browser).get_attribute("data-version")
    cards[0].click()
    cards[-1].click()
    browser.find_element(By.ID, "play-btn").click()
    wait_for(lambda: table(browser).get_attribute("data-version") != version, what="the refusal")
    assert browser.find_element(By.ID, "error").text
    browser.find_element(By.ID, "clear-btn").click()

    def hint_shot():
        browser.find_element(By.ID, "hint-toggle").click()
        wait_for(lambda: browser.find_element(By.ID, "hint-panel").is_displayed(), what="the hint")
        assert browser.find_elements(By.CSS_SELECTOR, "#belief-picture rect")
        save(browser, "web-hint.png")
        browser.find_element(By.ID, "hint-toggle").click()

    play_to_the_end(browser, "doudizhu", shot=hint_shot)
    outcome = browser.find_element(By.ID, "outcome").text
    assert outcome.startswith("You won") or outcome.startswith("You lost")
    points = browser.find_element(By.ID, "points").text
    earned = int(points.rsplit(" ", 1)[1])
    assert earned == (30 if outcome.startswith("You won") else 0)   # Normal is the weakest opponent

    browser.get(server + "/leaderboard")
    row = wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#leaderboard .player-row"),
                   what="the leaderboard")[0]
    assert row.get_attribute("data-player") == "you"
    assert row.find_elements(By.TAG_NAME, "td")[1].text == str(earned)

    browser.get(server + "/replays")
    rows = wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#record-list .record-row"),
                    what="the record list")
    rows[0].click()
    wait_for(lambda: browser.find_element(By.ID, "replay").is_displayed(), what="the replay")
    for _ in range(4):
        browser.find_element(By.ID, "next-step").click()
    assert browser.find_element(By.ID, "replay").get_attribute("data-step") == "4"
    hands = browser.find_elements(By.CSS_SELECTOR, "#replay-hands .group")
    assert len(hands) == 3 and all(h.find_elements(By.CSS_SELECTOR, ".card") for h in hands)
    assert "plays" in browser.find_element(By.ID, "replay-move").text
    save(browser, "web-replay.png")


@pytest.mark.parametrize("rules", ["tractor", "classic"])
def test_shengji_round_by_clicking(server, browser, rules):
    start(browser, server, "shengji", {"rules": rules, "mode": "deal"},
          ["human", "rule:easy", "rule", "rule:easy"], 21)
    roles = browser.find_element(By.ID, "seats").text
    assert "your partner" in roles
    groups = [g.text for g in browser.find_elements(By.CSS_SELECTOR, "#hand .group-label")]
    assert groups and (rules == "classic" or "trumps" in groups)

    def table_shot():
        if rules == "tractor":
            save(browser, "web-table.png")

    play_to_the_end(browser, "shengji", shot=table_shot)
    assert "round over" in browser.find_element(By.ID, "round-summary").text
    assert "your team" in browser.find_element(By.ID, "outcome").text
    assert "wins the trick" in browser.find_element(By.ID, "log").text
