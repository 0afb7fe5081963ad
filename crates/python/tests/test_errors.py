"""Bad input is an exception with the command line's message, and leaves earlier results alone."""

import pytest

import petri


def test_a_value_out_of_range_names_the_field_the_value_and_what_is_allowed(angio):
    angio["grid"] = [41, 41, 0]
    with pytest.raises(petri.ConfigError, match=r"grid\[2\] = 0 is not allowed"):
        petri.open(angio)


def test_an_unknown_model_lists_the_models():
    with pytest.raises(petri.ConfigError, match="angiogenesis, rdme, epidermis, gliding, network"):
        petri.open({"model": "heart"})


def test_an_unknown_key_is_refused(angio):
    angio["grdi"] = 3
    with pytest.raises(petri.ConfigError, match="grdi"):
        petri.open(angio)


def test_network_options_are_refused_for_other_models(angio):
    with pytest.raises(petri.ConfigError, match="trajectories is an option of reaction networks"):
        petri.open(angio, trajectories=10)


def test_a_models_own_options_are_checked_by_its_flags(rdme, angio):
    with pytest.raises(petri.ConfigError, match="--devices 0: 1 to lattice.shape.z"):
        petri.open(rdme, options={"devices": 0})
    with pytest.raises(petri.ConfigError, match="--sweeps"):
        petri.open(rdme, options={"sweeps": "sometimes"})
    with pytest.raises(petri.ConfigError, match="unexpected argument '--devices'"):
        petri.open(angio, options={"devices": 2})


def test_a_network_needs_an_end_time_and_a_known_device(birth_death):
    with pytest.raises(petri.ConfigError, match="t_end"):
        petri.open(birth_death)
    with pytest.raises(petri.ConfigError, match="device"):
        petri.open(birth_death, t_end=1.0, device="quantum")


def test_run_arguments_are_checked(angio):
    sim = petri.open(angio)
    with pytest.raises(petri.ConfigError, match="steps or until"):
        sim.run(10, until=1.0)
    with pytest.raises(petri.ConfigError, match="checkpoint_every needs out"):
        sim.run(10, checkpoint_every=5)
    sim.run(10)
    with pytest.raises(petri.ConfigError, match="until"):
        sim.run(until=0.0)
    assert sim.step == 10


def test_a_damaged_checkpoint_is_refused(angio, tmp_path):
    sim = petri.open(angio)
    sim.run(20)
    path = tmp_path / "a.petri"
    sim.save_checkpoint(path)
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(petri.CheckpointError):
        petri.open(resume=path)


def test_a_checkpoint_of_another_model_is_refused(angio, rdme, tmp_path):
    sim = petri.open(angio)
    sim.save_checkpoint(tmp_path / "a.petri")
    with pytest.raises(petri.CheckpointError, match="written by model angiogenesis"):
        petri.open(rdme, resume=tmp_path / "a.petri")


def test_a_gliding_checkpoint_needs_its_config(gliding, tmp_path):
    sim = petri.open(gliding)
    sim.run(10)
    sim.save_checkpoint(tmp_path / "g.petri")
    with pytest.raises(petri.ConfigError, match="the config the gliding run was started from"):
        petri.open(resume=tmp_path / "g.petri")
    gliding["filaments"]["u_r"] = 2.0
    with pytest.raises(petri.CheckpointError, match="differs .* in: filaments"):
        petri.open(gliding, resume=tmp_path / "g.petri")


def test_a_gliding_courant_safety_outside_0_1_is_refused(gliding):
    for bad in (0.0, 1.5):
        gliding["courant_safety"] = bad
        with pytest.raises(petri.ConfigError,
                           match=f"courant_safety = {bad:g} is not allowed: a fraction in"):
            petri.open(gliding)


def test_a_run_into_a_folder_holding_other_files_leaves_them(angio, tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    sim = petri.open(angio)
    with pytest.raises(petri.PetriError):
        sim.run(10, out=tmp_path)
    assert (tmp_path / "notes.txt").read_text() == "mine"


def test_a_missing_config_file_is_an_os_error(tmp_path):
    with pytest.raises(OSError):
        petri.open(tmp_path / "nothing.json")


def test_the_package_has_a_version():
    assert isinstance(petri.__version__, str)
    assert petri.__version__.count(".") == 2, petri.__version__


def test_a_config_error_is_a_value_error(angio):
    assert issubclass(petri.ConfigError, petri.PetriError)
    assert issubclass(petri.ConfigError, ValueError)
    angio["grid"] = [41, 41, 0]
    with pytest.raises(ValueError, match=r"grid\[2\] = 0"):
        petri.open(angio)


def test_an_unknown_key_of_a_dict_gets_a_suggestion_and_no_json_position(angio):
    angio["grdi"] = 3
    with pytest.raises(petri.ConfigError, match="did you mean `grid`") as e:
        petri.open(angio)
    assert "line" not in str(e.value) and "column" not in str(e.value), e.value


def test_negative_steps_are_a_value_error(angio):
    sim = petri.open(angio)
    with pytest.raises(ValueError, match="steps = -5 is not allowed"):
        sim.run(-5)
    assert sim.step == 0


def test_checkpoint_errors_are_the_documented_types(angio, tmp_path):
    with pytest.raises(FileNotFoundError):
        petri.open(resume=tmp_path / "missing.petri")
    garbage = tmp_path / "garbage.petri"
    garbage.write_bytes(b"not a checkpoint at all")
    with pytest.raises(petri.CheckpointError, match="not a Petri checkpoint"):
        petri.open(resume=garbage)


def test_messages_use_python_words(angio, tmp_path):
    sim = petri.open(angio)
    sim.run(5, out=tmp_path / "run")
    again = petri.open(angio)
    with pytest.raises(petri.PetriError, match="overwrite=True") as e:
        again.run(5, out=tmp_path / "run")
    assert "--overwrite" not in str(e.value), e.value
