# in your app's repository, with gc-bridge installed (pip install "<wheel>[harness]")
gcbridge bridge --version        # the bridge.js this gc-bridge ships
gcbridge bridge --sha256         # its pin: the kits check it when they load the file
mkdir -p App/Resources
gcbridge bridge --print > App/Resources/gc-bridge.js
gcbridge harness run --bridge App/Resources/gc-bridge.js --report harness-report
